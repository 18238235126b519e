#include "options.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "heed/common/error.h"
#include "heed/common/version.h"

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

// Boost.ProgramOptions (1.74) fills placeholders (%value%, %option%, %invalid_line% ...) into
// its messages in a loop that never ends when the filled-in text holds its own placeholder, so
// `--beam %value%` would hang instead of failing. Text with a %name% is refused before Boost
// sees it.
void refuse_placeholders(const std::string& text, const std::string& where) {
  for (size_t open = text.find('%'); open != std::string::npos;) {
    size_t end = open + 1;
    while (end < text.size() && ((text[end] >= 'a' && text[end] <= 'z') || text[end] == '_')) {
      ++end;
    }
    if (end < text.size() && text[end] == '%' && end > open + 1) {
      throw ConfigError(where + ": '" + text.substr(open, end - open + 1) +
                        "' cannot be used in options");
    }
    open = text.find('%', open + 1);
  }
}

}  // namespace

CommandLine::CommandLine(ToolInfo info) : info_(std::move(info)) {
  common_.log.name = "heed-" + info_.name;
  common_.log.level = info_.default_level;
  groups_.emplace_back("General");
  groups_.back().add_options()("help,h", "print this help and exit")(
      "version", "print the version and exit")("verbose,v", po::bool_switch(),
                                               "log one level more (info for filters)")(
      "quiet,q", po::bool_switch(), "log one level less (errors only for filters)")(
      "log-level", po::value(&log_level_),
      "trace, debug, info, warn, error or off (overrides -v/-q)")(
      "log-file", po::value(&common_.log.file), "also write the log to this file")(
      "threads", po::value(&common_.threads)->default_value(common_.threads),
      "worker threads (0 = all cores)")("seed",
                                        po::value(&common_.seed)->default_value(common_.seed),
                                        "seed for every random choice")(
      "config", po::value(&config_file_),
      "read options from this file (key = value lines); the command line wins")(
      "print-config", "print the effective options in config-file syntax and exit");
}

po::options_description& CommandLine::group(const std::string& title) {
  groups_.emplace_back(title);
  return groups_.back();
}

void CommandLine::positional(const std::string& name, int max_count) {
  positional_.add(name.c_str(), max_count);
}

int CommandLine::threads() const {
  if (common_.threads > 0) return common_.threads;
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

bool CommandLine::parse(int argc, char** argv) {
  po::options_description all;
  for (const auto& g : groups_) all.add(g);

  for (int i = 1; i < argc; ++i) refuse_placeholders(argv[i], "command line");
  po::store(po::command_line_parser(argc, argv).options(all).positional(positional_).run(),
            values_);
  if (values_.count("config")) {
    const auto& path = values_["config"].as<std::string>();
    std::ifstream file(path);
    if (!file) throw FileError("cannot open config file '" + path + "'");
    std::stringstream text;
    text << file.rdbuf();
    refuse_placeholders(text.str(), "config file '" + path + "'");
    try {
      // store() keeps the first value it sees, so command-line values beat the file's.
      po::store(po::parse_config_file(text, all), values_);
    } catch (const po::error& e) {
      throw ConfigError("config file '" + path + "': " + e.what());
    }
  }

  if (values_.count("help")) {
    std::cout << "Usage: heed-" << info_.name << " " << info_.synopsis << "\n\n"
              << info_.description << "\n\n";
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

  LogLevel level = info_.default_level;
  if (values_["verbose"].as<bool>()) level = shift_log_level(level, 1);
  if (values_["quiet"].as<bool>()) level = shift_log_level(level, -1);
  if (!log_level_.empty()) level = parse_log_level(log_level_);
  common_.log.level = level;
  if (common_.threads < 0) throw ConfigError("--threads must be 0 (all cores) or positive");

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

po::typed_value<float>* float_value(float* target) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", static_cast<double>(*target));
  return po::value(target)->default_value(*target, text);
}

void check_choice(const std::string& option, const std::string& value,
                  const std::vector<std::string>& allowed) {
  for (const auto& a : allowed) {
    if (a == value) return;
  }
  std::string list;
  for (size_t i = 0; i < allowed.size(); ++i) {
    list += (i ? (i + 1 == allowed.size() ? " or " : ", ") : "") + allowed[i];
  }
  throw ConfigError("--" + option + ": unknown value '" + value + "' (expected " + list + ")");
}

}  // namespace heed::cli
