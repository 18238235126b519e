#include "average/options.h"

#include "heed/common/error.h"

namespace heed::average_tool {

cli::ToolInfo tool_info() {
  return {"average", "-o OUT.heed MODEL.heed MODEL.heed ...",
          "Averages the parameters of models of one architecture and vocabularies (checkpoint "
          "averaging, OpenNMT's average_models): typically the last models a run kept with "
          "heed-train --keep-models. The output is a model for heed-translate and heed-align, "
          "with the first model's metadata.",
          LogLevel::kInfo};
}

void add_options(cli::CommandLine& cl, AverageCliConfig& cfg) {
  // clang-format off
  cl.group("Averaging")
      ("output,o", cli::required_text(&cfg.output), "the averaged model (written atomically)")
      ("model",    cli::texts(&cfg.models), "a model file (positional; two or more usual)");
  // clang-format on
  cl.positional("model", -1);
}

bool parse_options(int argc, char** argv, AverageCliConfig& cfg) {
  cli::CommandLine cl(tool_info());
  add_options(cl, cfg);
  if (!cl.parse(argc, argv)) return false;
  if (cfg.models.empty()) throw ConfigError("give the models to average");
  return true;
}

}  // namespace heed::average_tool
