// heed-average's configuration and option table.
#pragma once

#include <string>
#include <vector>

#include "common/options.h"

namespace heed::average_tool {

struct AverageCliConfig {
  std::vector<std::string> models;
  std::string output;
};

cli::ToolInfo tool_info();
// Declares heed-average's options on cl, bound to cfg.
void add_options(cli::CommandLine& cl, AverageCliConfig& cfg);
// Parses argv into cfg and checks it; false when the tool must exit 0 at once (--help,
// --version, --print-config).
bool parse_options(int argc, char** argv, AverageCliConfig& cfg);

}  // namespace heed::average_tool
