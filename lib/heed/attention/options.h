// A mechanism's own options (--heads, --window, …): declared by the mechanism in its registry
// entry, typed and range-checked here, stored in the model file's config and listed by
// heed-train --help. Adding an option touches only the mechanism's file (and its docs).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace heed::attention {

struct OptionSpec {
  std::string name;  // "heads": the flag --heads and the key in the model config
  bool integer = false;
  double default_value = 0;
  double min = 0;  // inclusive range
  double max = 0;
  std::string help;  // one line for --help
};

// Resolved values: every option the mechanism declares, by name.
using OptionValues = std::map<std::string, double>;

// given (the options the user set) checked against specs: each must be declared by the
// mechanism, in range and integral where declared so; the rest get their defaults. Throws
// ConfigError naming the option and the mechanism ("--heads does not apply to attention
// 'general'", "--heads must be an integer in [1, 64], not 0").
OptionValues resolve_options(const std::string& mechanism, const std::vector<OptionSpec>& specs,
                             const OptionValues& given);

// The value of a declared option; InternalError when it is missing (a mechanism asking for an
// option it did not declare).
double option_value(const OptionValues& values, const std::string& name);
int64_t option_int(const OptionValues& values, const std::string& name);

}  // namespace heed::attention
