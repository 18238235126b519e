#include "pooling/options.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <optional>
#include <tuple>

#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/io/line_writer.h"
#include "heed/onednn/context.h"

namespace heed::pooling {
namespace {

// Appends value, parsed from item of the option's list, unless an earlier item gave the same
// value: each value names runs (their rows' key), and a repeated one would run them twice.
template <class T>
void add_once(std::vector<T>& values, const T& value, const char* option, const std::string& item) {
  if (std::find(values.begin(), values.end(), value) != values.end()) {
    throw ConfigError(std::string(option) + ": '" + item +
                      "' repeats a value given before in the list (each is one set of runs)");
  }
  values.push_back(value);
}

std::vector<int64_t> parse_lengths(const std::string& list, const char* option) {
  std::vector<int64_t> lengths;
  for (const auto& item : split(list, ",")) {
    const std::optional<int64_t> value = parse_int64(item);
    if (!value || *value < 12 || *value > 1000000) {
      throw ConfigError(std::string(option) + ": '" + item +
                        "' is not an integer in [12, 1000000]");
    }
    add_once(lengths, *value, option, item);
  }
  return lengths;
}

std::vector<std::pair<PoolingKind, float>> parse_models(const std::string& list) {
  std::vector<std::pair<PoolingKind, float>> models;
  for (const auto& name : split(list, ",")) {
    float fixed_scale = 0;
    const PoolingKind kind = parse_pooling_kind(name, &fixed_scale);
    add_once(models, std::pair{kind, fixed_scale}, "models", name);
  }
  return models;
}

std::vector<float> parse_rates(const std::string& list) {
  std::vector<float> rates;
  for (const auto& item : split(list, ",")) {
    char* end = nullptr;
    const double value = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(value > 0) || value > 1) {
      throw ConfigError("learning-rates: '" + item + "' is not a number in (0, 1]");
    }
    add_once(rates, float(value), "learning-rates", item);
  }
  return rates;
}

// "A:B" → {A, B} with 1 ≤ A ≤ B (what: the option's name, for the message).
std::pair<int64_t, int64_t> parse_range(const std::string& what, const std::string& text) {
  const auto parts = split(text, ":");
  const std::optional<int64_t> a = parts.size() == 2 ? parse_int64(parts[0]) : std::nullopt;
  const std::optional<int64_t> b = parts.size() == 2 ? parse_int64(parts[1]) : std::nullopt;
  if (!a || !b || *a < 1 || *b < *a || *b > 1000000) {
    throw ConfigError(what + ": '" + text + "' is not A:B with 1 ≤ A ≤ B ≤ 1000000");
  }
  return {*a, *b};
}

// Checks for cli::checked: parse_range, parse_lengths under the option's name.
std::function<void(const std::string&)> range_check(const std::string& what) {
  return [what](const std::string& text) { parse_range(what, text); };
}
std::function<void(const std::string&)> lengths_check(const char* option) {
  return [option](const std::string& text) { parse_lengths(text, option); };
}

}  // namespace

cli::ToolInfo tool_info() {
  return {"pooling", "[options] [-o RESULTS.tsv]",
          "Raffel & Ellis's long-term-memory problems (addition, multiplication), set up as the "
          "authors' released code: for each task, length T, model and learning rate, trains "
          "until every one of 1,000 held-out sequences is within 0.04 of its target (tested "
          "every 1,000 updates) or the update budget is spent, and writes one TSV row. A later "
          "learning rate stops once it has used as many updates as the best earlier one needed. "
          "With -o, rows already in the file are kept and not run again.",
          LogLevel::kWarn, 1};
}

void add_options(cli::CommandLine& cl, PoolingCliConfig& cfg) {
  PoolingRunConfig& run = cfg.run;
  // clang-format off
  cl.group("Experiment")
      ("task",             cli::choice(&cfg.task, {"addition", "multiplication", "both"}),
                           "addition, multiplication or both")
      ("lengths",          cli::checked(&cfg.length_list, lengths_check("lengths")),
                           "sequence lengths T (comma-separated; sequences drawn in [T, 1.1·T))")
      ("models",           cli::checked(&cfg.model_list, parse_models),
                           "comma-separated: ff-pool, ff-pool-linear, ff-pool-scaled, "
                           "ff-pool-fixed-S (the scale fixed at S in (0, 20]), "
                           "ff-pool-positional, mean, dense, dense-mean")
      ("learning-rates",   cli::checked(&cfg.rate_list, parse_rates),
                           "Adam step sizes, tried in this order")
      ("variable-length",  cli::checked(&cfg.variable_range, range_check("variable-length")),
                           "MIN:MAX: each batch one length drawn in [MIN, MAX], tested at 100 "
                           "lengths across it (replaces --lengths)")
      ("transfer-lengths", cli::checked(&cfg.transfer_list, lengths_check("transfer-lengths")),
                           "after training, also score held-out sets at these T "
                           "(generalisation)")
      ("train-markers",    cli::checked(&cfg.train_marker_range, range_check("train-markers")),
                           "A:B: the second marker only at steps [A, B) in training")
      ("test-markers",     cli::checked(&cfg.test_marker_range, range_check("test-markers")),
                           "A:B: a further held-out set with the second marker at [A, B)")
      ("unfused",          cli::flag(&cfg.unfused),
                           "run ff-pool and mean unfused (the reference: stores [T, N, W])")
      ("output,o",         cli::text_with_default(&cfg.output),
                           "results table ('-' = stdout); a file's finished rows are kept and "
                           "skipped, and a run stopped midway (Ctrl-C) continues from "
                           "FILE.checkpoint")
      ("bias-out",         cli::text(&cfg.bias_output),
                           "TSV of the learned bias b_t per position t of every "
                           "ff-pool-positional run trained (its key columns, position, bias); "
                           "the file's rows of other runs are kept")
      ("marked-out",       cli::text(&cfg.marked_output),
                           "TSV of every attention run's held-out mean weight on the two marked "
                           "steps at its end, and the most its score's bound allows them "
                           "(tanh: 2e^2s / (2e^2s + T - 2)); the file's rows of other runs are "
                           "kept");
  cl.group("Training")
      ("budget-steps",     cli::number(&run.budget_steps, cli::at_least(1)),
                           "updates at most per run (the authors': 100000)")
      ("eval-every",       cli::number(&run.eval_every, cli::at_least(1)),
                           "updates between tests on the held-out set")
      ("eval-batches",     cli::number(&run.eval_batches, cli::at_least(1)),
                           "held-out batches (of --batch-size sequences)")
      ("batch-size",       cli::number(&run.batch_size, cli::at_least(1)), "sequences per update")
      ("max-params",       cli::number(&cfg.max_params, cli::at_least(1)),
                           "skip a model with more parameters than this (the dense model grows "
                           "with T)");
  // clang-format on
}

bool parse_options(int argc, char** argv, PoolingCliConfig& cfg) {
  cli::CommandLine cl(tool_info());
  add_options(cl, cfg);
  if (!cl.parse(argc, argv)) return false;
  PoolingRunConfig& run = cfg.run;
  run.fused = !cfg.unfused;
  if (cfg.task == "both") {
    cfg.problems = {PoolingProblem::kAddition, PoolingProblem::kMultiplication};
  } else {
    cfg.problems = {parse_pooling_problem(cfg.task)};
  }
  cfg.models = parse_models(cfg.model_list);
  cfg.learning_rates = parse_rates(cfg.rate_list);
  if (!cfg.variable_range.empty()) {
    std::tie(run.variable_min, run.variable_max) =
        parse_range("variable-length", cfg.variable_range);
    cfg.lengths = {run.variable_max};
  } else {
    cfg.lengths = parse_lengths(cfg.length_list, "lengths");
  }
  if (!cfg.transfer_list.empty()) {
    cfg.transfer_lengths = parse_lengths(cfg.transfer_list, "transfer-lengths");
  }
  if (!cfg.train_marker_range.empty()) {
    cfg.train_markers = parse_range("train-markers", cfg.train_marker_range);
  }
  if (!cfg.test_marker_range.empty()) {
    cfg.test_markers = parse_range("test-markers", cfg.test_marker_range);
  }
  run.seed = cl.common().seed;
  onednn::set_threads(cl.threads());
  io::check_writable(cfg.output);
  if (!cfg.bias_output.empty()) io::check_writable(cfg.bias_output);
  if (!cfg.marked_output.empty()) io::check_writable(cfg.marked_output);
  return true;
}

}  // namespace heed::pooling
