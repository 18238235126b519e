// heed-train plot: the learning curves of several runs, from their --metrics-file, in one SVG
// (the four panels of DIR/curves.svg, a colour per run).
#include <spdlog/spdlog.h>

#include <string>
#include <vector>

#include "common/options.h"
#include "heed/io/line_writer.h"
#include "heed/train/curves.h"
#include "train/options.h"

namespace heed::train_tool {
namespace {

struct PlotCliConfig {
  std::vector<std::string> metrics;
  std::string output = "-";
};

cli::ToolInfo plot_tool_info() {
  return {"train", "plot METRICS.tsv... [-o curves.svg]",
          "Draws the learning curves of one or more runs from their metrics files (heed-train "
          "--metrics-file): training loss, validation perplexity, validation BLEU and learning "
          "rate against updates, a colour per run, as one SVG (the panels of DIR/curves.svg).",
          LogLevel::kWarn};
}

void add_plot_options(cli::CommandLine& cl, PlotCliConfig& cfg) {
  // clang-format off
  cl.group("Plot")
      ("metrics",  cli::required_texts(&cfg.metrics),
                   "metrics files of the runs to draw (also as the arguments)")
      ("output,o", cli::text_with_default(&cfg.output), "the SVG file ('-' = stdout)");
  // clang-format on
  cl.positional("metrics", -1);
}

}  // namespace

int plot_main(int argc, char** argv) {
  PlotCliConfig cfg;
  cli::CommandLine cl(plot_tool_info());
  add_plot_options(cl, cfg);
  if (!cl.parse(argc, argv)) return 0;
  io::check_writable(cfg.output);
  std::vector<train::CurveRun> runs;
  for (const std::string& path : cfg.metrics) {
    runs.push_back({path, train::read_metrics_curves(path)});
  }
  io::LineWriter out(cfg.output);
  out.write(train::learning_curves_svg(runs));
  out.commit();
  spdlog::info("[plot] drew {} run(s) to {}", runs.size(), cfg.output);
  return 0;
}

}  // namespace heed::train_tool
