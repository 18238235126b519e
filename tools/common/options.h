// Options every tool shares, the one parsing routine that handles --help, --version, --config and
// --print-config the same way everywhere, and the kinds of values an option table declares.
//
// A tool's table (tools/<tool>/options.cpp) is one call per option, between clang-format off/on:
//
//   cl.group("Input/output")
//       ("input,i",   cli::text_with_default(&cfg.input), "input file ('-' = stdin)")
//       ("mode",      cli::choice(&cfg.mode, {"conservative", "aggressive"}), "...")
//       ("beam-size", cli::number(&cfg.beam_size, cli::between(1, 1000)), "beam size");
//
// Values are made here and owned (cli::Value) until the table hands them to Boost.ProgramOptions.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
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

// One option's value: what it binds, how it is checked, its default. Owned until a Group hands
// it to Boost; made by the functions below.
class Value {
 public:
  // named, when given, is told the option's long name as the table declares it (for messages
  // such as "--mode: unknown value 'x'").
  explicit Value(std::unique_ptr<po::value_semantic> semantic,
                 std::function<void(const std::string&)> named = {});

 private:
  friend class Group;
  std::unique_ptr<po::value_semantic> semantic_;
  std::function<void(const std::string&)> named_;
};

// Adds options to one group of --help, one call per option. name is "long" or "long,s".
class Group {
 public:
  explicit Group(po::options_description& options) : options_(&options) {}
  Group& operator()(const std::string& name, const std::string& help);  // takes no value
  Group& operator()(const std::string& name, Value value, const std::string& help);

 private:
  po::options_description* options_;
};

class CommandLine {
 public:
  explicit CommandLine(ToolInfo info);

  // A named group of tool options; shown in --help in the order first asked for. Asking again
  // for a title adds to the same group.
  Group group(const std::string& title);
  void positional(const std::string& name, int max_count);
  // A default that depends on other options (heed-translate's --beam-size is 1 with
  // --sampling). When name is not given, derive() (called once the given values are stored in
  // their targets) may return the value to use instead, as it would be written on the command
  // line; it is checked and stored like a given one, and --print-config prints it, so a printed
  // configuration replays.
  void derived_default(std::string name, std::function<std::optional<std::string>()> derive);
  // Every group, "General" first: what --help prints (and tests/tools/common audit).
  const std::deque<po::options_description>& groups() const { return groups_; }

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
  std::deque<po::options_description> groups_;  // a deque: Group references stay valid
  std::vector<std::string> group_titles_;       // groups_[i]'s title (Boost keeps it private)
  po::positional_options_description positional_;
  po::variables_map values_;
  std::string log_level_;
  std::string config_file_;
  std::string subcommand_;
  std::vector<std::pair<std::string, std::function<std::optional<std::string>()>>> derived_;
};

// Text values. An option "absent unless given" has no default in --help or --print-config.
Value text(std::string* target);               // absent unless given
Value text_with_default(std::string* target);  // *target is the default
Value required_text(std::string* target);
Value texts(std::vector<std::string>* target);  // repeatable (and positional)
Value required_texts(std::vector<std::string>* target);
// *target is the default, shown in --help as `shown`.
Value texts_with_default(std::vector<std::string>* target, const std::string& shown);

// A switch: false unless given.
Value flag(bool* target);
// true or false (also on|off, yes|no, 1|0); the option alone means true; *target is the default.
Value boolean(bool* target);
// The same, absent unless given (*target keeps its value): for a switch that only some values of
// another option accept, so that --print-config does not write it where it would be refused.
Value boolean_without_default(bool* target);

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

// The value semantics of range-checked numbers derive from this: tests/tools/common audits every
// tool's table for numeric options declared without a range.
class RangeChecked {
 public:
  virtual ~RangeChecked() = default;
};

// A numeric option (int, long, long long, their unsigned kinds, float, double): parsed strictly
// (the whole token, no "-1" wrapping to a huge unsigned), then checked against its bounds; a bad
// value is a usage error naming the option and the accepted range, also in config files. *target
// is the default (floats shown as written: 0.001, not 0.00100000005).
template <class T>
Value number(T* target, Bounds bounds);
// The same without a default: the option is absent unless given.
template <class T>
Value number_without_default(T* target, Bounds bounds);

// A string option whose value is checked as it is parsed, so that a bad value in a config file
// is reported with its FILE:LINE like any other. check throws ConfigError. *target is the
// default.
Value checked(std::string* target, std::function<void(const std::string&)> check);
// The same for a repeatable option (absent unless given): check sees each value.
Value checked_texts(std::vector<std::string>* target,
                    std::function<void(const std::string&)> check);

// A list given as several words after the option ("-m bleu chrf", sacreBLEU's habit) or
// repeated; check sees each word. *target is the default, shown in --help as `shown`.
Value checked_words(std::vector<std::string>* target, const std::string& shown,
                    std::function<void(const std::string&)> check);

// An option whose value is one of a fixed set of names; anything else is a usage error that
// names the option and lists them ("--mode: unknown value 'x' (expected a, b or c)"), in a config
// file with its FILE:LINE. *target is the default.
Value choice(std::string* target, std::vector<std::string> names);

// The same for a set that a library owns: parse (model::parse_cell, train::parse_lr_schedule,
// attention::canonical_attention_name...) refuses a bad name with a ConfigError that lists the
// names, takes the set's aliases ("mlp", "ppl"), and turns the name into *target's value.
// default_name is the default as written in --help and --print-config.
Value parsed_choice(std::string default_name, std::function<void(const std::string&)> check,
                    std::function<void(const std::string&)> store);
template <class T, class Parse>
Value choice(T* target, std::string default_name, Parse parse) {
  return parsed_choice(
      std::move(default_name), [parse](const std::string& name) { (void)parse(name); },
      [target, parse](const std::string& name) { *target = parse(name); });
}

// Throws ConfigError naming the option when value is not one of allowed.
void check_choice(const std::string& option, const std::string& value,
                  const std::vector<std::string>& allowed);

}  // namespace heed::cli
