// heed-train: trains an attention encoder-decoder on tokenized parallel text and writes a
// model file (and a resumable checkpoint) into an output directory.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string>

#include "common/progress.h"
#include "common/run.h"
#include "heed/common/error.h"
#include "heed/onednn/context.h"
#include "heed/train/communicator.h"
#include "heed/train/signals.h"
#include "heed/train/trainer.h"
#include "train/options.h"

namespace {

using namespace heed;

int train_main(int argc, char** argv) {
  train_tool::TrainCliConfig cfg;
  if (!train_tool::parse_options(argc, argv, cfg)) return 0;
  // Under mpirun every process logs only warnings and errors, but rank 0, which logs as usual.
  const train::Communicator& world = train::world(cfg.mpi_timeout);
  if (world.rank() != 0 && spdlog::get_level() < spdlog::level::warn) {
    spdlog::set_level(spdlog::level::warn);
  }
  onednn::set_threads(cfg.threads);
  onednn::log_backend_info();
  // A log reader that goes away (heed-train 2>&1 | head) must not end the run; SIGINT and
  // SIGTERM act at once until training begins, then save first (train/signals.h).
  train::ignore_broken_pipes();
  cli::Progress bar;
  double last_log = -1e9;
  const train::TrainResult result = train::train(cfg.train, [&](const train::TrainProgress& p) {
    char text[160];
    std::snprintf(text, sizeof text, "step %lld ep %lld loss %.3f %.0f tok/s lr %.2g",
                  static_cast<long long>(p.step), static_cast<long long>(p.epoch + 1), p.loss,
                  p.tokens_per_second, static_cast<double>(p.lr));
    if (bar.active()) {
      bar.update(p.fraction, text);
    } else if (p.elapsed - last_log >= 60) {
      last_log = p.elapsed;
      spdlog::info("{} ({} elapsed)", text, cli::format_duration(p.elapsed));
    }
  });
  bar.clear();
  const std::string validation =
      result.validated
          ? fmt::format("best model at step {}: validation perplexity {:.2f}, BLEU {:.2f}",
                        result.best_step, result.best_valid_ppl, result.best_valid_bleu)
          : std::string("no validation data (the model is the last one)");
  spdlog::info("done: {} updates, {} epochs, {:.0f} s, stopped by {}; {}", result.steps,
               result.epochs, result.seconds, result.stop_reason, validation);
  if (result.run_steps > 0 && result.run_seconds > 0) {
    spdlog::info(
        "throughput: {:.0f} target tokens/s with {} process{}; summing gradients {:.3f} ms per "
        "update ({:.1f}% of the time)",
        result.tokens / result.run_seconds, result.processes, result.processes > 1 ? "es" : "",
        1e3 * result.communication_seconds / double(result.run_steps),
        100 * result.communication_seconds / result.run_seconds);
  }
  // As a log file that could not be written: the model is there, the metrics are not.
  if (!result.metrics_failure.empty()) {
    throw WriteError(result.metrics_failure + " (the work itself is done)");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // heed-train plot METRICS.tsv...: the curves of several runs (train/plot.cpp).
  if (argc > 1 && std::string(argv[1]) == "plot") {
    return heed::cli::run_tool(argc - 1, argv + 1, "train", heed::train_tool::plot_main);
  }
  heed::cli::prefer_huge_pages(argv);
  return heed::train::finish_world(heed::cli::run_tool(argc, argv, "train", train_main));
}
