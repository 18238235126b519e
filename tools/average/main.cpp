// heed-average: checkpoint averaging — the element-wise mean of the parameters of several models
// of one architecture (heed-train --keep-models N leaves the last N as DIR/model.step-K.heed).
#include <spdlog/spdlog.h>

#include <string>
#include <vector>

#include "common/options.h"
#include "common/run.h"
#include "heed/common/error.h"
#include "heed/model/average.h"

namespace {

using namespace heed;
namespace po = boost::program_options;

struct AverageCliConfig {
  std::vector<std::string> models;
  std::string output;
};

bool parse_options(int argc, char** argv, AverageCliConfig& cfg) {
  cli::CommandLine cl({"average", "-o OUT.heed MODEL.heed MODEL.heed ...",
                       "Averages the parameters of models of one architecture and vocabularies "
                       "(checkpoint averaging, OpenNMT's average_models): typically the last "
                       "models a run kept with heed-train --keep-models. The output is a model "
                       "for heed-translate and heed-align, with the first model's metadata.",
                       LogLevel::kInfo});
  cl.group("Averaging")
      .add_options()("output,o", po::value(&cfg.output)->required(),
                     "the averaged model (written atomically)")(
          "model", po::value(&cfg.models), "a model file (positional; two or more usual)");
  cl.positional("model", -1);
  if (!cl.parse(argc, argv)) return false;
  if (cfg.models.empty()) throw ConfigError("give the models to average");
  return true;
}

int average_main(int argc, char** argv) {
  AverageCliConfig cfg;
  if (!parse_options(argc, argv, cfg)) return 0;
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
