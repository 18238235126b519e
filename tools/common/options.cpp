#include "options.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>
#include <type_traits>

#include "common/foreign_options.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/common/version.h"
#include "heed/io/line_reader.h"
#include "heed/text/input_check.h"

namespace heed::cli {
namespace {

// Config-file syntax for one stored value; empty when the type is not printable.
std::vector<std::string> value_strings(const po::variable_value& value) {
  const boost::any& any = value.value();
  std::ostringstream out;
  if (auto* s = boost::any_cast<std::string>(&any)) return {*s};
  if (auto* v = boost::any_cast<std::vector<std::string>>(&any)) return *v;
  if (auto* i = boost::any_cast<int>(&any))
    out << *i;
  else if (auto* l = boost::any_cast<long>(&any))
    out << *l;
  else if (auto* ll = boost::any_cast<long long>(&any))
    out << *ll;
  else if (auto* u = boost::any_cast<std::uint64_t>(&any))
    out << *u;
  else if (auto* sz = boost::any_cast<unsigned>(&any))
    out << *sz;
  else if (auto* d = boost::any_cast<double>(&any))
    out << *d;
  else if (auto* f = boost::any_cast<float>(&any))
    out << *f;
  else if (auto* b = boost::any_cast<bool>(&any))
    out << (*b ? "true" : "false");
  else
    return {};
  return {out.str()};
}

// Reads a config file; an error names the file and line. Each line is parsed alone first (for
// the line number), then the whole text at once, so that several lines may add to one
// multi-value option. The text is read once: --config <(...) works.
// Boost.ProgramOptions (1.74) fills placeholders (%value%, %option%, %invalid_line% ...) into
// its error messages in a loop that never ends when the filled-in text holds a placeholder
// itself, so `--beam %value%` would hang instead of failing (found by tests/fuzz/options_fuzz.cpp).
// Text with a %name% is refused before Boost sees it.
void refuse_placeholders(const std::string& text, const std::string& where) {
  for (size_t open = text.find('%'); open != std::string::npos; open = text.find('%', open + 1)) {
    size_t end = open + 1;
    while (end < text.size() && ((text[end] >= 'a' && text[end] <= 'z') || text[end] == '_')) {
      ++end;
    }
    if (end < text.size() && text[end] == '%' && end > open + 1) {
      throw ConfigError(where + ": '" + text.substr(open, end - open + 1) +
                        "' cannot be used in options");
    }
  }
}

// The entry of foreign_options() that word (an option word as typed, or "--" + a config key)
// spells for tool, or null. A one-letter spelling ("-v") matches that word alone; a longer one
// matches with one or two dashes and '_' for '-' ("-early_stopping", "--early-stopping"). An
// alias or refusal gives way to the tool's own option of that spelling; a misreading does not.
const ForeignOption* foreign_option(const std::string& word, const std::string& tool,
                                    const po::options_description& all) {
  const std::string name = spelled_name(word);
  const bool one_letter = word.size() == 2 && word[1] != '-';
  for (const ForeignOption& f : foreign_options()) {
    const std::string spelling = f.spelling;
    const bool matches = spelling.size() == 2 ? one_letter && word == spelling
                                              : !one_letter && name == spelled_name(spelling);
    if (!matches || (*f.tool && tool != f.tool) || !all.find_nothrow(f.heed_name, false)) continue;
    const bool own = one_letter ? all.find_nothrow(word, false) != nullptr
                                : all.find_nothrow(name, false) != nullptr;
    if (own && f.habit != Habit::kMisread) continue;
    return &f;
  }
  return nullptr;
}

std::string refusal(const std::string& spelled, const ForeignOption& f) {
  return spelled + " (" + f.toolkit + "): " + f.why;
}

// Other toolkits' habits on the command line: aliases rewritten to heed's names, refusals
// thrown, and a single-dash word that names a long option ("-model", "-beam_size"), which Boost
// would read as a one-letter option with a value ("-m odel"), refused with heed's spelling.
void read_habits(std::vector<std::string>& args, const std::string& tool,
                 const po::options_description& all) {
  for (std::string& arg : args) {
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') continue;
    const std::string word = arg.substr(0, arg.find('='));
    if (const ForeignOption* f = foreign_option(word, tool, all)) {
      if (f->habit != Habit::kAlias) throw ConfigError(refusal(word, *f));
      arg = "--" + std::string(f->heed_name) + arg.substr(word.size());
      continue;
    }
    const std::string name = spelled_name(word);
    const bool one_dash = arg[1] != '-';
    if ((one_dash && name.size() > 1) || (!one_dash && name != word.substr(2))) {
      if (all.find_nothrow(name, false) == nullptr) continue;
      std::string read_as;
      const po::option_description* letter = all.find_nothrow(word.substr(0, 2), false);
      if (one_dash && letter != nullptr) {
        read_as = letter->semantic()->max_tokens() > 0
                      ? " (one dash starts a one-letter option: " + word.substr(0, 2) + " " +
                            word.substr(2) + ")"
                      : " (one dash starts one-letter options)";
      }
      throw ConfigError(word + ": did you mean --" + name + "?" + read_as);
    }
  }
}

// A config line as heed's syntax: Marian's YAML ("key: value", "key: [a, b]", "key:" followed
// by "  - item" lines) becomes "key = value" lines; aliases of other toolkits become heed's
// names; a refused or misspelled key is an error. list_key carries a YAML list's key from line
// to line.
std::vector<std::string> heed_lines(const std::string& line, const std::string& where,
                                    const std::string& tool, const po::options_description& all,
                                    std::string& list_key) {
  const size_t begin = line.find_first_not_of(" \t\r");
  if (begin == std::string::npos || line[begin] == '#') return {line};
  const auto trimmed = [](std::string text) {
    const size_t first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos) return std::string();
    text = text.substr(first, text.find_last_not_of(" \t\r") + 1 - first);
    if (text.size() >= 2 && (text[0] == '"' || text[0] == '\'') && text.back() == text[0]) {
      text = text.substr(1, text.size() - 2);
    }
    return text;
  };
  std::string key;
  std::vector<std::string> values;
  const size_t colon = line.find(':');
  const size_t equals = line.find('=');
  if (line[begin] == '-' && line.compare(begin, 2, "- ") == 0 && !list_key.empty()) {
    key = list_key;
    values.push_back(trimmed(line.substr(begin + 2)));
  } else if (colon != std::string::npos && (equals == std::string::npos || colon < equals) &&
             line.find_first_of(" \t", begin) >= colon) {
    key = line.substr(begin, colon - begin);
    std::string value = trimmed(line.substr(colon + 1));
    list_key.clear();
    if (value.empty()) {
      // A list follows: its key is checked here, on its own line.
      (void)heed_lines(key + " = -", where, tool, all, list_key);
      list_key = key;
      return {};
    }
    if (value.front() == '[' && value.back() == ']') {
      for (const std::string& item : split(value.substr(1, value.size() - 2), ",")) {
        values.push_back(trimmed(item));
      }
    } else {
      values.push_back(value);
    }
  } else if (equals != std::string::npos) {
    list_key.clear();
    key = line.substr(begin, equals - begin);
    key.erase(key.find_last_not_of(" \t") + 1);
    values.push_back(line.substr(equals + 1));
  } else {
    list_key.clear();
    return {line};
  }
  if (const ForeignOption* f = foreign_option("--" + key, tool, all)) {
    if (f->habit != Habit::kAlias) throw ConfigError(where + ": " + refusal("'" + key + "'", *f));
    key = f->heed_name;
  } else if (spelled_name(key) != key && all.find_nothrow(spelled_name(key), false)) {
    throw ConfigError(where + ": '" + key + "': did you mean " + spelled_name(key) + "?");
  }
  std::vector<std::string> lines;
  for (const std::string& value : values) lines.push_back(key + " = " + value);
  return lines;
}

void store_config_file(const std::string& path, const std::string& tool,
                       const po::options_description& all, po::variables_map& values) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw FileError(path + ": cannot open config file: is a directory");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) throw FileError(path + ": cannot open config file: " + errno_message(errno));
  std::ostringstream read;
  read << file.rdbuf();
  // A byte order mark (some editors write one) is not part of the first key.
  const std::string text(io::without_bom(read.str()));
  std::istringstream lines(text);
  std::string raw, list_key, whole;
  long long number = 0;
  std::map<std::string, long long> first_line_of;
  while (std::getline(lines, raw)) {
    ++number;
    const std::string where = path + ":" + std::to_string(number);
    // Checked before anything echoes the line: a message must not carry its raw bytes.
    if (const auto bad = text::find_invalid_text(raw)) {
      throw ConfigError(at_line(path, number, text::describe_invalid_text(raw, *bad)));
    }
    refuse_placeholders(raw, where);
    // What Boost would accept silently or report without a line: sections, a nested --config,
    // an option given twice.
    const size_t begin = raw.find_first_not_of(" \t\r");
    if (begin != std::string::npos && raw[begin] == '[') {
      throw ConfigError(
          at_line(path, number,
                  "sections ('" + raw.substr(begin) + "') are not part of heed's config files"));
    }
    for (const std::string& line : heed_lines(raw, where, tool, all, list_key)) {
      whole += line + "\n";
      const size_t first = line.find_first_not_of(" \t\r");
      const size_t equals = line.find('=');
      if (first != std::string::npos && line[first] != '#' && equals != std::string::npos) {
        std::string key = line.substr(first, equals - first);
        key.erase(key.find_last_not_of(" \t") + 1);
        if (key == "config") {
          throw ConfigError(
              at_line(path, number, "a config file cannot name another (config = ...)"));
        }
        const po::option_description* option = all.find_nothrow(key, false);
        // Options that collect several values (--hyp, -i: std::vector) may be given on many
        // lines.
        const auto* typed =
            option ? dynamic_cast<const po::typed_value_base*>(option->semantic().get()) : nullptr;
        const bool many =
            typed != nullptr &&
            std::string(typed->value_type().name()).find("vector") != std::string::npos;
        const auto [seen, fresh] = first_line_of.emplace(key, number);
        if (!fresh && !many) {
          throw ConfigError(at_line(
              path, number,
              "'" + key + "' given twice (first on line " + std::to_string(seen->second) + ")"));
        }
      }
      std::istringstream one(line);
      po::variables_map scratch;
      try {
        po::store(po::parse_config_file(one, all), scratch);
      } catch (const po::error& e) {
        throw ConfigError(at_line(path, number, e.what()));
      }
    }
  }
  std::istringstream converted(whole);
  po::store(po::parse_config_file(converted, all), values);
}

std::string list_names(const std::vector<std::string>& names) {
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) {
    list += (i ? (i + 1 == names.size() ? " or " : ", ") : "") + names[i];
  }
  return list;
}

// A string (or, T = std::vector<std::string>, a repeatable string) checked as it is parsed: a bad
// value in a config file is then reported with its FILE:LINE. check gets the option's long name
// (set when a Group adds it) and each value given.
template <class T>
class Checked final : public po::typed_value<T> {
 public:
  using Check = std::function<void(const std::string& option, const std::string& value)>;
  Checked(T* target, Check check) : po::typed_value<T>(target), check_(std::move(check)) {}

  void set_option(const std::string& option) { option_ = option; }

  void xparse(boost::any& store, const std::vector<std::string>& tokens) const override {
    po::typed_value<T>::xparse(store, tokens);
    try {
      for (const std::string& token : tokens) check_(option_, token);
    } catch (const ConfigError& e) {
      throw po::error(e.what());
    }
  }

 private:
  Check check_;
  std::string option_;
};
using CheckedString = Checked<std::string>;

template <class T>
Value named(std::unique_ptr<Checked<T>> value) {
  Checked<T>* raw = value.get();
  return Value(std::move(value), [raw](const std::string& option) { raw->set_option(option); });
}

// store, when given, is handed the value (given or default) by po::notify, once the whole
// command line and config file are read.
Value checked_value(std::string* target, const std::string& default_value,
                    CheckedString::Check check,
                    std::function<void(const std::string&)> store = nullptr) {
  auto value = std::make_unique<CheckedString>(target, std::move(check));
  value->default_value(default_value);
  if (store) value->notifier(std::move(store));
  return named(std::move(value));
}

// Boost's own value kinds, owned from the start.
template <class T>
std::unique_ptr<po::typed_value<T>> boost_value(T* target) {
  return std::unique_ptr<po::typed_value<T>>(po::value(target));
}

// A numeric option's value: parsed strictly, then checked against its bounds.
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
    std::string why;  // a number the type cannot hold, said
    if constexpr (std::is_integral_v<T>) {
      const char* end = token.data() + token.size();
      const auto [stop, error] = std::from_chars(token.data(), end, value);
      parsed = error == std::errc() && stop == end;
      as_long_double = static_cast<long double>(value);
    } else {
      char* stop = nullptr;
      const long double written = std::strtold(token.c_str(), &stop);
      value = static_cast<T>(written);
      parsed = !token.empty() && *stop == '\0' && std::isfinite(value);
      // The bounds hold for the value stored: 1e-46 is a float 0, 1e39 a float infinity.
      as_long_double = static_cast<long double>(value);
      const char* type = std::is_same_v<T, float> ? "float" : "double";
      char text[80] = "";
      if (parsed || !std::isfinite(written) || *stop != '\0') {
        if (written != 0 && value == 0) {
          std::snprintf(text, sizeof text, " (below the smallest %s, %g)", type,
                        double(std::numeric_limits<T>::denorm_min()));
        }
      } else {
        std::snprintf(text, sizeof text, " (past the largest %s, %g)", type,
                      double(std::numeric_limits<T>::max()));
      }
      why = text;
    }
    const long double v = as_long_double;
    if (!parsed || !(min_open_ ? v > min_ : v >= min_) || !(max_open_ ? v < max_ : v <= max_)) {
      throw po::error_with_option_name(
          "option '%canonical_option%' must be " +
          describe(min_, max_, min_open_, max_open_, std::is_integral_v<T>) + ", not '" + token +
          "'" + why);
    }
    store = value;
  }

 private:
  long double min_, max_;
  bool min_open_, max_open_;
};

}  // namespace

Value::Value(std::unique_ptr<po::value_semantic> semantic,
             std::function<void(const std::string&)> named)
    : semantic_(std::move(semantic)), named_(std::move(named)) {}

Group& Group::operator()(const std::string& name, const std::string& help) {
  options_->add_options()(name.c_str(), help.c_str());
  return *this;
}

Group& Group::operator()(const std::string& name, Value value, const std::string& help) {
  if (value.named_) value.named_(name.substr(0, name.find(',')));
  // Boost takes ownership (a shared_ptr in the option's description).
  options_->add_options()(name.c_str(), value.semantic_.release(), help.c_str());
  return *this;
}

Value text(std::string* target) {
  return Value(boost_value(target));
}

Value text_with_default(std::string* target) {
  auto value = boost_value(target);
  value->default_value(*target);
  return Value(std::move(value));
}

Value required_text(std::string* target) {
  auto value = boost_value(target);
  value->required();
  return Value(std::move(value));
}

Value texts(std::vector<std::string>* target) {
  return Value(boost_value(target));
}

Value required_texts(std::vector<std::string>* target) {
  auto value = boost_value(target);
  value->required();
  return Value(std::move(value));
}

Value texts_with_default(std::vector<std::string>* target, const std::string& shown) {
  auto value = boost_value(target);
  value->default_value(*target, shown);
  return Value(std::move(value));
}

Value flag(bool* target) {
  return Value(std::unique_ptr<po::typed_value<bool>>(po::bool_switch(target)));
}

Value boolean(bool* target) {
  auto value = boost_value(target);
  value->default_value(*target)->implicit_value(true);
  return Value(std::move(value));
}

Value boolean_without_default(bool* target) {
  auto value = boost_value(target);
  value->implicit_value(true);
  return Value(std::move(value));
}

template <class T>
Value number(T* target, Bounds bounds) {
  auto value = std::make_unique<NumberValue<T>>(target, bounds);
  if constexpr (std::is_floating_point_v<T>) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", static_cast<double>(*target));
    value->default_value(*target, text);
  } else {
    value->default_value(*target);
  }
  return Value(std::move(value));
}

template <class T>
Value number_without_default(T* target, Bounds bounds) {
  return Value(std::make_unique<NumberValue<T>>(target, bounds));
}

// The numeric types the tools declare.
#define HEED_CLI_NUMBER(T)              \
  template Value number<T>(T*, Bounds); \
  template Value number_without_default<T>(T*, Bounds);
HEED_CLI_NUMBER(int)
HEED_CLI_NUMBER(long)
HEED_CLI_NUMBER(long long)
HEED_CLI_NUMBER(unsigned)
HEED_CLI_NUMBER(unsigned long)
HEED_CLI_NUMBER(unsigned long long)
HEED_CLI_NUMBER(float)
HEED_CLI_NUMBER(double)
#undef HEED_CLI_NUMBER

Value checked(std::string* target, std::function<void(const std::string&)> check) {
  return checked_value(
      target, *target,
      [check = std::move(check)](const std::string&, const std::string& value) { check(value); });
}

Value checked_texts(std::vector<std::string>* target,
                    std::function<void(const std::string&)> check) {
  return named(std::make_unique<Checked<std::vector<std::string>>>(
      target,
      [check = std::move(check)](const std::string&, const std::string& value) { check(value); }));
}

Value checked_words(std::vector<std::string>* target, const std::string& shown,
                    std::function<void(const std::string&)> check) {
  auto value = std::make_unique<Checked<std::vector<std::string>>>(
      target,
      [check = std::move(check)](const std::string&, const std::string& word) { check(word); });
  value->multitoken()->default_value(*target, shown);
  return named(std::move(value));
}

Value choice(std::string* target, std::vector<std::string> names) {
  return checked_value(
      target, *target,
      [names = std::move(names)](const std::string& option, const std::string& value) {
        check_choice(option, value, names);
      });
}

Value parsed_choice(std::string default_name, std::function<void(const std::string&)> check,
                    std::function<void(const std::string&)> store) {
  return checked_value(
      nullptr, default_name,
      [check = std::move(check)](const std::string&, const std::string& name) { check(name); },
      std::move(store));
}

std::string describe(long double min, long double max, bool min_open, bool max_open,
                     bool integral) {
  char text[128];
  if (integral) {
    std::snprintf(text, sizeof text, "an integer in [%.0Lf, %.0Lf]", min, max);
    return text;
  }
  const bool has_min = std::isfinite(min), has_max = std::isfinite(max);
  if (has_min && has_max) {
    std::snprintf(text, sizeof text, "a number in %c%Lg, %Lg%c", min_open ? '(' : '[', min, max,
                  max_open ? ')' : ']');
  } else if (has_min) {
    std::snprintf(text, sizeof text, "a finite number %s %Lg", min_open ? ">" : ">=", min);
  } else if (has_max) {
    std::snprintf(text, sizeof text, "a finite number %s %Lg", max_open ? "<" : "<=", max);
  } else {
    std::snprintf(text, sizeof text, "a finite number");
  }
  return text;
}

CommandLine::CommandLine(ToolInfo info) : info_(std::move(info)) {
  common_.log.name = "heed-" + info_.name;
  common_.log.level = info_.default_level;
  common_.seed = info_.default_seed;
  const auto switch_without_target = [] {
    return Value(std::unique_ptr<po::typed_value<bool>>(po::bool_switch()));
  };
  Group general = group("General");
  // clang-format off
  general
      ("help,h",       "print this help and exit")
      ("version",      "print the version and exit")
      ("verbose,v",    switch_without_target(), "log one level more (info for filters)")
      ("quiet,q",      switch_without_target(), "log one level less (errors only for filters)")
      ("log-level",    text(&log_level_),
                       "trace, debug, info, warn, error or off (overrides -v/-q)")
      ("log-file",     text(&common_.log.file), "also write the log to this file");
  if (!info_.own_threads_option) {
    general("threads", number(&common_.threads, between(0, kMaxThreads)),
            "worker threads (0 = all cores; at most 1024)");
  }
  general
      ("seed",         number(&common_.seed, at_least(0)), "seed for every random choice")
      ("config",       text(&config_file_),
                       "read options from this file (key = value lines); the command line wins")
      ("print-config", "print the effective options in config-file syntax and exit");
  // clang-format on
  if (!info_.subcommands.empty()) {
    subcommand_ = info_.subcommands.front();
    general("command", text_with_default(&subcommand_),
            "the subcommand (" + list_names(info_.subcommands) +
                "), usually given as the first argument; for config files");
  }
}

Group CommandLine::group(const std::string& title) {
  for (size_t i = 0; i < group_titles_.size(); ++i) {
    if (group_titles_[i] == title) return Group(groups_[i]);
  }
  group_titles_.push_back(title);
  groups_.emplace_back(title);
  return Group(groups_.back());
}

void CommandLine::positional(const std::string& name, int max_count) {
  positional_.add(name.c_str(), max_count);
}

void CommandLine::derived_default(std::string name,
                                  std::function<std::optional<std::string>()> derive) {
  derived_.emplace_back(std::move(name), std::move(derive));
}

int CommandLine::threads() const {
  if (common_.threads > 0) return common_.threads;
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

bool CommandLine::parse(int argc, char** argv) {
  po::options_description all;
  for (const auto& g : groups_) all.add(g);

  std::vector<std::string> args(argv + 1, argv + argc);
  if (!info_.subcommands.empty() && !args.empty() && !args.front().empty() &&
      args.front()[0] != '-') {
    // "heed-tokenize vocab ..." is "--command vocab": the command line wins over a config file.
    args.insert(args.begin(), "--command");
  }
  for (const auto& arg : args) refuse_placeholders(arg, "the command line");
  read_habits(args, info_.name, all);
  po::store(po::command_line_parser(args).options(all).positional(positional_).run(), values_);
  if (values_.count("config")) {
    store_config_file(values_["config"].as<std::string>(), info_.name, all, values_);
  }
  if (!info_.subcommands.empty()) {
    const std::string& given = values_["command"].as<std::string>();
    if (std::find(info_.subcommands.begin(), info_.subcommands.end(), given) ==
        info_.subcommands.end()) {
      throw ConfigError("unknown subcommand '" + given +
                        "' (expected: " + list_names(info_.subcommands) + ")");
    }
  }

  if (values_.count("help")) {
    std::cout << "Usage: heed-" << info_.name << " " << info_.synopsis << "\n\n"
              << info_.description << "\n\n";
    if (!info_.subcommands.empty()) {
      std::cout << "Subcommands: " << list_names(info_.subcommands) << " (default "
                << info_.subcommands.front() << ")\n\n";
    }
    for (const auto& g : groups_) std::cout << g << "\n";
    std::cout << "See heed-" << info_.name << "(1) for details and examples.\n";
    return false;
  }
  if (values_.count("version")) {
    std::cout << "heed-" << info_.name << " " << HEED_VERSION;
    if (std::string(HEED_GIT_HASH).size()) std::cout << " (" << HEED_GIT_HASH << ")";
    std::cout << "\n";
    return false;
  }
  po::notify(values_);
  for (const auto& [name, derive] : derived_) {
    if (given(name)) continue;
    const std::optional<std::string> value = derive();
    if (!value) continue;
    const po::value_semantic& semantic = *all.find(name, false).semantic();
    boost::any parsed;
    semantic.parse(parsed, {*value}, true);
    semantic.notify(parsed);
    static_cast<std::map<std::string, po::variable_value>&>(values_)[name] =
        po::variable_value(parsed, /*defaulted=*/true);
  }

  LogLevel level = info_.default_level;
  if (values_["verbose"].as<bool>()) level = shift_log_level(level, 1);
  if (values_["quiet"].as<bool>()) level = shift_log_level(level, -1);
  if (!log_level_.empty()) level = parse_log_level(log_level_);
  common_.log.level = level;

  if (values_.count("print-config")) {
    static const char* kSkip[] = {"help", "version", "config", "print-config", "verbose", "quiet"};
    for (const auto& g : groups_) {
      for (const auto& option : g.options()) {
        const std::string& name = option->long_name();
        bool skip = false;
        for (const char* s : kSkip) skip = skip || name == s;
        if (skip || !values_.count(name)) continue;
        for (const auto& v : value_strings(values_[name])) std::cout << name << " = " << v << "\n";
      }
    }
    return false;
  }

  init_logging(common_.log);
  return true;
}

void check_choice(const std::string& option, const std::string& value,
                  const std::vector<std::string>& allowed) {
  for (const auto& a : allowed) {
    if (a == value) return;
  }
  throw ConfigError("--" + option + ": unknown value '" + value + "' (expected " +
                    list_names(allowed) + ")");
}

}  // namespace heed::cli
