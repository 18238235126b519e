// The attention configurations the registry loops test (tests/unit/attention, tests/unit/model):
// every registered mechanism with its default options, and once more for each of its on/off
// switches (an integer option in [0, 1]) set to the value that is not its default — so a switch
// a mechanism declares is gradient-checked, with the rest, the moment it is declared.
#pragma once

#include <string>
#include <vector>

#include "heed/attention/registry.h"

namespace heed::test {

struct TestedAttention {
  std::string name;
  attention::OptionValues options;  // the switch set, if any; every other option its default
  // "general" or "general identity-init=1", for INFO().
  std::string label() const {
    std::string text = name;
    for (const auto& [option, value] : options) {
      text += " " + option + "=" + std::to_string(static_cast<int>(value));
    }
    return text;
  }
};

inline std::vector<TestedAttention> tested_attentions() {
  std::vector<TestedAttention> tested;
  for (const std::string& name : attention::attention_names()) {
    tested.push_back({name, {}});
    for (const attention::OptionSpec& spec : attention::attention_info(name).options) {
      if (spec.integer && spec.min == 0 && spec.max == 1) {
        tested.push_back({name, {{spec.name, 1 - spec.default_value}}});
      }
    }
  }
  return tested;
}

}  // namespace heed::test
