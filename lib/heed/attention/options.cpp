#include "heed/attention/options.h"

#include <cmath>
#include <sstream>

#include "heed/common/error.h"

namespace heed::attention {

namespace {

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

OptionValues resolve_options(const std::string& mechanism, const std::vector<OptionSpec>& specs,
                             const OptionValues& given) {
  OptionValues values;
  for (const OptionSpec& spec : specs) values[spec.name] = spec.default_value;
  for (const auto& [name, value] : given) {
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : specs) {
      if (s.name == name) spec = &s;
    }
    if (!spec) {
      std::string own;
      for (const OptionSpec& s : specs) own += (own.empty() ? "--" : ", --") + s.name;
      throw ConfigError("--" + name + " does not apply to attention '" + mechanism + "' (" +
                        (own.empty() ? "it has no options" : "its options: " + own) + ")");
    }
    const bool integral = std::isfinite(value) && std::floor(value) == value;
    if (!std::isfinite(value) || value < spec->min || value > spec->max ||
        (spec->integer && !integral)) {
      throw ConfigError("--" + name + " must be " + (spec->integer ? "an integer" : "a number") +
                        " in [" + number_text(spec->min) + ", " + number_text(spec->max) +
                        "], not " + number_text(value));
    }
    values[name] = value;
  }
  return values;
}

double option_value(const OptionValues& values, const std::string& name) {
  const auto it = values.find(name);
  if (it == values.end()) throw InternalError("attention option '" + name + "' was not resolved");
  return it->second;
}

int64_t option_int(const OptionValues& values, const std::string& name) {
  return static_cast<int64_t>(option_value(values, name));
}

}  // namespace heed::attention
