// Options every tool shares, and the one parsing routine that handles --help, --version,
// --config and --print-config the same way everywhere.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "heed/common/log.h"

namespace heed::cli {

namespace po = boost::program_options;

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
};

class CommandLine {
 public:
  explicit CommandLine(ToolInfo info);

  // A named group of tool options; shown in --help in the order added.
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
  // Threads resolved: --threads, or every core when 0.
  int threads() const;

 private:
  ToolInfo info_;
  CommonConfig common_;
  std::vector<po::options_description> groups_;
  po::positional_options_description positional_;
  po::variables_map values_;
  std::string log_level_;
  std::string config_file_;
};

// A float option with its current value as default, shown as written (0.001, not the
// 0.00100000005 that Boost prints).
po::typed_value<float>* float_value(float* target);

// Throws ConfigError naming the option when value is not one of allowed.
void check_choice(const std::string& option, const std::string& value,
                  const std::vector<std::string>& allowed);

}  // namespace heed::cli
