#include "pooling/options.h"

#include <optional>

#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/io/line_writer.h"
#include "heed/onednn/context.h"

namespace heed::pooling {
namespace {

std::vector<int64_t> parse_lengths(const std::string& list) {
  std::vector<int64_t> lengths;
  for (const auto& item : split(list, ",")) {
    const std::optional<int64_t> value = parse_int64(item);
    if (!value || *value < 2 || *value > 1000000) {
      throw ConfigError("lengths: '" + item + "' is not an integer in [2, 1000000]");
    }
    lengths.push_back(*value);
  }
  return lengths;
}

std::vector<PoolingKind> parse_kinds(const std::string& list) {
  std::vector<PoolingKind> kinds;
  for (const auto& m : split(list, ",")) kinds.push_back(parse_pooling_kind(m));
  return kinds;
}

}  // namespace

cli::ToolInfo tool_info() {
  return {"pooling", "[options] [-o RESULTS.tsv]",
          "Raffel & Ellis's long-term-memory problems (addition, multiplication): trains "
          "feed-forward attention pooling, mean pooling and a dense layer over the flattened "
          "sequence for each length T until 99% of a held-out set is within 0.04 of the target "
          "or the budget is spent, and writes one TSV row per task, T and model. With -o, rows "
          "already in the file are kept and not run again.",
          LogLevel::kWarn, 1};
}

void add_options(cli::CommandLine& cl, PoolingCliConfig& cfg) {
  PoolingRunConfig& run = cfg.run;
  run.budget_steps = 20000;  // the tool's budget (a run of the harness has none by default)
  // clang-format off
  cl.group("Experiment")
      ("task",            cli::choice(&cfg.task, {"addition", "multiplication", "both"}),
                          "addition, multiplication or both")
      ("lengths",         cli::checked(&cfg.length_list, parse_lengths),
                          "sequence lengths T (comma-separated)")
      ("models",          cli::checked(&cfg.model_list, parse_kinds),
                          "ff-pool, mean, dense (comma-separated)")
      ("variable-length", cli::flag(&run.task.variable_length),
                          "each sequence's length drawn uniformly in [T/2, T] (dense: not "
                          "applicable)")
      ("output,o",        cli::text_with_default(&cfg.output),
                          "results table ('-' = stdout); a file's finished rows are kept and "
                          "skipped");
  cl.group("Training")
      ("budget-steps",    cli::number(&run.budget_steps, cli::at_least(0)),
                          "give up after this many steps (0 = no step limit)")
      ("budget-seconds",  cli::number(&run.budget_seconds, cli::at_least(0)),
                          "give up after this many seconds of a run (0 = no time limit)")
      ("eval-every",      cli::number(&run.eval_every, cli::at_least(1)),
                          "steps between evaluations on the held-out set")
      ("eval-size",       cli::number(&run.eval_size, cli::at_least(1)), "held-out sequences")
      ("batch-size",      cli::number(&run.batch_size, cli::at_least(1)), "sequences per step")
      ("learning-rate",   cli::number(&run.learning_rate, cli::above(0)), "Adam's step size")
      ("max-params",      cli::number(&cfg.max_params, cli::at_least(1)),
                          "skip a model with more parameters than this (the dense model grows "
                          "with T)");
  // clang-format on
}

bool parse_options(int argc, char** argv, PoolingCliConfig& cfg) {
  cli::CommandLine cl(tool_info());
  add_options(cl, cfg);
  if (!cl.parse(argc, argv)) return false;
  PoolingRunConfig& run = cfg.run;
  if (run.budget_steps == 0 && run.budget_seconds == 0) {
    throw ConfigError("--budget-steps and --budget-seconds cannot both be 0");
  }
  if (cfg.task == "both") {
    cfg.problems = {PoolingProblem::kAddition, PoolingProblem::kMultiplication};
  } else {
    cfg.problems = {parse_pooling_problem(cfg.task)};
  }
  cfg.lengths = parse_lengths(cfg.length_list);
  cfg.kinds = parse_kinds(cfg.model_list);
  run.seed = cl.common().seed;
  onednn::set_threads(cl.threads());
  io::check_writable(cfg.output);
  return true;
}

}  // namespace heed::pooling
