// heed-pooling's configuration and option table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/options.h"
#include "pooling/task.h"

namespace heed::pooling {

struct PoolingCliConfig {
  std::vector<PoolingProblem> problems;
  std::vector<int64_t> lengths;
  std::vector<PoolingKind> kinds;
  PoolingRunConfig run;  // task and kind are set per row
  int64_t max_params = 200000000;
  std::string output = "-";

  // As the command line gives them; parse_options resolves them into the fields above.
  std::string task = "both";
  std::string length_list = "50,100,500,1000,5000,10000";
  std::string model_list = "ff-pool,mean,dense";
};

cli::ToolInfo tool_info();
// Declares heed-pooling's options on cl, bound to cfg.
void add_options(cli::CommandLine& cl, PoolingCliConfig& cfg);
// Parses argv into cfg and checks it (and sets the thread count); false when the tool must exit
// 0 at once (--help, --version, --print-config).
bool parse_options(int argc, char** argv, PoolingCliConfig& cfg);

}  // namespace heed::pooling
