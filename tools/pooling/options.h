// heed-pooling's configuration and option table.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/options.h"
#include "pooling/task.h"

namespace heed::pooling {

struct PoolingCliConfig {
  std::vector<PoolingProblem> problems;
  std::vector<int64_t> lengths;
  std::vector<std::pair<PoolingKind, float>> models;  // the kind, and ff-pool-fixed-S's S
  std::vector<float> learning_rates;
  PoolingRunConfig run;  // task, kind, rate and the bar are set per row
  std::vector<int64_t> transfer_lengths;
  std::pair<int64_t, int64_t> train_markers{0, 0}, test_markers{0, 0};  // {0, 0}: not given
  int64_t max_params = 200000000;
  std::string output = "-";
  std::string bias_output;    // --bias-out: "" = none
  std::string marked_output;  // --marked-out: "" = none

  // As the command line gives them; parse_options resolves them into the fields above.
  std::string task = "both";
  std::string length_list = "50,100,500,1000,5000,10000";
  std::string model_list = "ff-pool,mean";
  std::string rate_list = "0.01,0.003,0.001,0.0003";
  std::string variable_range, transfer_list, train_marker_range, test_marker_range;
  bool unfused = false;
};

cli::ToolInfo tool_info();
// Declares heed-pooling's options on cl, bound to cfg.
void add_options(cli::CommandLine& cl, PoolingCliConfig& cfg);
// Parses argv into cfg and checks it (and sets the thread count); false when the tool must exit
// 0 at once (--help, --version, --print-config).
bool parse_options(int argc, char** argv, PoolingCliConfig& cfg);

}  // namespace heed::pooling
