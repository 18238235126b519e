// heed-average: checkpoint averaging — the element-wise mean of the parameters of several models
// of one architecture (heed-train --keep-models N leaves the last N as DIR/model.step-K.heed).
#include <spdlog/spdlog.h>

#include <string>
#include <vector>

#include "average/options.h"
#include "common/run.h"
#include "heed/model/average.h"

namespace {

using namespace heed;

int average_main(int argc, char** argv) {
  average_tool::AverageCliConfig cfg;
  if (!average_tool::parse_options(argc, argv, cfg)) return 0;
  const model::ModelFile mean = model::average_models(cfg.models);
  model::save_model(cfg.output, mean);
  spdlog::info("averaged {} model{} into {}", cfg.models.size(), cfg.models.size() > 1 ? "s" : "",
               cfg.output);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return heed::cli::run_tool(argc, argv, "average", average_main);
}
