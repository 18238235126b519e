// Options every tool shares, and the one parsing routine that handles --help, --version,
// --config and --print-config the same way everywhere.
#pragma once

#include <algorithm>
#include <boost/program_options.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "heed/common/log.h"

namespace heed::cli {

namespace po = boost::program_options;

// The most --threads a tool takes: more than any machine heed runs on has cores, far fewer than
// make OpenMP fail (65,536 crashed libgomp, 30,000 hung; issue 29).
inline constexpr int kMaxThreads = 1024;

struct CommonConfig {
  LogConfig log;
  int threads = 0;         // 0 = all cores
  std::uint64_t seed = 1;  // every random choice derives from it
};

struct ToolInfo {
  std::string name;         // "tokenize" → binary heed-tokenize
  std::string synopsis;     // one usage line after "Usage: heed-<name> "
  std::string description;  // one paragraph for --help
  LogLevel default_level = LogLevel::kWarn;
  std::uint64_t default_seed = 1;
  // Subcommands, the default first ("heed-tokenize learn-bpe ..."); empty for none. Given as
  // the first argument, or as "command = NAME" in a config file.
  std::vector<std::string> subcommands = {};
  // The tool declares --threads itself (heed-bench-attn: a list of thread counts to measure);
  // threads() is then every core.
  bool own_threads_option = false;
};

class CommandLine {
 public:
  explicit CommandLine(ToolInfo info);

  // A named group of tool options; shown in --help in the order first asked for. Asking again
  // for a title returns the same group.
  po::options_description& group(const std::string& title);
  void positional(const std::string& name, int max_count);

  // Parses argv (then --config FILE beneath it: the command line wins). Returns false when
  // the tool must exit 0 at once (--help, --version, --print-config already printed).
  bool parse(int argc, char** argv);

  const po::variables_map& values() const { return values_; }
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  bool given(const std::string& name) const {
    return values_.count(name) > 0 && !values_[name].defaulted();
  }
  const CommonConfig& common() const { return common_; }
  // The subcommand given (or the default one); empty for a tool without subcommands.
  const std::string& subcommand() const { return subcommand_; }
  // Threads resolved: --threads, or every core when 0.
  int threads() const;

 private:
  ToolInfo info_;
  CommonConfig common_;
  std::deque<po::options_description> groups_;  // a deque: group() references stay valid
  std::vector<std::string> group_titles_;       // groups_[i]'s title (Boost keeps it private)
  po::positional_options_description positional_;
  po::variables_map values_;
  std::string log_level_;
  std::string config_file_;
  std::string subcommand_;
};

// The values a numeric option accepts: min and max, each inclusive unless open. NaN and the
// infinities are never accepted, and integer options are also bounded by their type.
struct Bounds {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;
  bool max_open = false;
};
inline Bounds at_least(double min) {
  return {min};
}
inline Bounds above(double min) {
  return {min, std::numeric_limits<double>::infinity(), true};
}
inline Bounds between(double min, double max) {
  return {min, max};
}
inline Bounds from_below(double min, double max) {
  return {min, max, false, true};
}  // [min, max)

// "an integer in [0, 2147483647]", "a finite number > 0" (for messages).
std::string describe(long double min, long double max, bool min_open, bool max_open, bool integral);

// Marks the value semantics of range-checked options: CommandLine::parse refuses to run with
// a numeric option declared in any other way, so no option escapes the check.
class RangeChecked {
 public:
  virtual ~RangeChecked() = default;
};

// A numeric option's value: parsed strictly (the whole token, no "-1" wrapping to a huge
// unsigned), then checked against its bounds; a bad value is a usage error naming the option
// and the accepted range, also in config files.
template <class T>
class NumberValue final : public po::typed_value<T>, public RangeChecked {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);

 public:
  NumberValue(T* target, Bounds bounds)
      : po::typed_value<T>(target),
        min_(bounds.min),
        max_(bounds.max),
        min_open_(bounds.min_open),
        max_open_(bounds.max_open) {
    if constexpr (std::is_integral_v<T>) {
      // long double holds every 64-bit integer exactly, so the type's limits are not rounded.
      min_ = std::max(min_, static_cast<long double>(std::numeric_limits<T>::lowest()));
      max_ = std::min(max_, static_cast<long double>(std::numeric_limits<T>::max()));
    }
  }

  void xparse(boost::any& store, const std::vector<std::string>& tokens) const override {
    po::validators::check_first_occurrence(store);
    const std::string& token = po::validators::get_single_string(tokens);
    T value{};
    long double as_long_double = 0;
    bool parsed = false;
    if constexpr (std::is_integral_v<T>) {
      const char* end = token.data() + token.size();
      const auto [stop, error] = std::from_chars(token.data(), end, value);
      parsed = error == std::errc() && stop == end;
      as_long_double = static_cast<long double>(value);
    } else {
      char* stop = nullptr;
      as_long_double = std::strtold(token.c_str(), &stop);
      value = static_cast<T>(as_long_double);
      parsed = !token.empty() && *stop == '\0' && std::isfinite(value);
    }
    const long double v = as_long_double;
    if (!parsed || !(min_open_ ? v > min_ : v >= min_) || !(max_open_ ? v < max_ : v <= max_)) {
      throw po::error_with_option_name(
          "option '%canonical_option%' must be " +
          describe(min_, max_, min_open_, max_open_, std::is_integral_v<T>) + ", not '" + token +
          "'");
    }
    store = value;
  }

 private:
  long double min_, max_;
  bool min_open_, max_open_;
};

// A range-checked numeric option with *target as its default (floats shown as written: 0.001,
// not the 0.00100000005 that Boost prints).
template <class T>
po::typed_value<T>* number(T* target, Bounds bounds) {
  auto* value = new NumberValue<T>(target, bounds);
  if constexpr (std::is_floating_point_v<T>) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", static_cast<double>(*target));
    return value->default_value(*target, text);
  } else {
    return value->default_value(*target);
  }
}
// The same without a default: the option is absent unless given.
template <class T>
po::typed_value<T>* number_without_default(T* target, Bounds bounds) {
  return new NumberValue<T>(target, bounds);
}

// A string option whose value is checked as it is parsed, so that a bad value in a config file
// is reported with its FILE:LINE like any other. check throws ConfigError (a library parser such
// as model::parse_cell, or check_choice). The default is *target.
po::typed_value<std::string>* checked(std::string* target,
                                      std::function<void(const std::string&)> check);

// Adds a filter's --on-invalid to group: error or replace, and skip where allow_skip (a line with
// invalid UTF-8 or a NUL byte), checked as it is parsed. *target holds the value as written;
// text::parse_on_invalid(*target, allow_skip) gives the policy.
void add_on_invalid(po::options_description& group, std::string* target, bool allow_skip);

// Throws ConfigError naming the option when value is not one of allowed.
void check_choice(const std::string& option, const std::string& value,
                  const std::vector<std::string>& allowed);

}  // namespace heed::cli
