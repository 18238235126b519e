// heed-pooling: Raffel & Ellis's long-term-memory experiment. Is feed-forward attention pooling
// just a dense layer? Trains the pooling models (task.h) on the addition and multiplication
// problems for each sequence length and learning rate, as the authors' released code does, and
// writes one TSV row per run (docs/attention.md).
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/options.h"
#include "common/progress.h"
#include "common/run.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"
#include "heed/onednn/context.h"
#include "task.h"

namespace {

using namespace heed;
namespace po = boost::program_options;

const char* const kHeader =
    "task\tT\ttrain\tmodel\tlr\tsolved\tsteps_to_solve\tsteps\tbest_accuracy\tfinal_accuracy\t"
    "final_mse\ttransfer\tparams\tseconds\tbudget_steps\tstop_after\tnote";
// task, T, train, model, lr: a row's identity. train says how the training sequences were
// drawn: "fixed" (lengths in [T, 1.1·T)), "variable:MIN-MAX" or "markers:A-B" (N₂ restricted).
constexpr size_t kKeyColumns = 5;
constexpr size_t kSolvedColumn = 5, kStepsToSolveColumn = 6;

struct PoolingCliConfig {
  std::vector<pooling::PoolingProblem> problems;
  std::vector<int64_t> lengths;
  std::vector<pooling::PoolingKind> kinds;
  std::vector<float> learning_rates;
  pooling::PoolingRunConfig run;  // task, kind, rate and the bar are set per row
  std::vector<int64_t> transfer_lengths;
  std::pair<int64_t, int64_t> train_markers{0, 0}, test_markers{0, 0};
  int64_t max_params = 200000000;
  std::string output = "-";
};

std::vector<int64_t> parse_lengths(const std::string& list) {
  std::vector<int64_t> lengths;
  for (const auto& item : split(list, ",")) {
    const std::optional<int64_t> value = parse_int64(item);
    if (!value || *value < 12 || *value > 1000000) {
      throw ConfigError("lengths: '" + item + "' is not an integer in [12, 1000000]");
    }
    lengths.push_back(*value);
  }
  return lengths;
}

std::vector<float> parse_rates(const std::string& list) {
  std::vector<float> rates;
  for (const auto& item : split(list, ",")) {
    char* end = nullptr;
    const double value = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(value > 0) || value > 1) {
      throw ConfigError("learning-rates: '" + item + "' is not a number in (0, 1]");
    }
    rates.push_back(float(value));
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

bool parse_options(int argc, char** argv, PoolingCliConfig& cfg) {
  cli::CommandLine cl({"pooling", "[options] [-o RESULTS.tsv]",
                       "Raffel & Ellis's long-term-memory problems (addition, multiplication), "
                       "set up as the authors' released code: for each task, length T, model "
                       "and learning rate, trains until every one of 1,000 held-out sequences "
                       "is within 0.04 of its target (tested every 1,000 updates) or the update "
                       "budget is spent, and writes one TSV row. A later learning rate stops "
                       "once it has used as many updates as the best earlier one needed. With "
                       "-o, rows already in the file are kept and not run again.",
                       LogLevel::kWarn, 1});
  std::string task = "both", lengths = "50,100,500,1000,5000,10000", models = "ff-pool,mean";
  std::string rates = "0.01,0.003,0.001,0.0003", variable, transfer, train_markers, test_markers;
  pooling::PoolingRunConfig& run = cfg.run;
  cl.group("Experiment")
      .add_options()(
          "task",
          cli::checked(&task,
                       [](const std::string& v) {
                         cli::check_choice("task", v, {"addition", "multiplication", "both"});
                       }),
          "addition, multiplication or both")(
          "lengths", cli::checked(&lengths, [](const std::string& v) { parse_lengths(v); }),
          "sequence lengths T₀ (comma-separated; sequences drawn in [T₀, 1.1·T₀))")(
          "models",
          cli::checked(&models,
                       [](const std::string& list) {
                         for (const auto& m : split(list, ",")) pooling::parse_pooling_kind(m);
                       }),
          "comma-separated: ff-pool, ff-pool-linear, ff-pool-scaled, ff-pool-positional, "
          "mean, dense, dense-mean")(
          "learning-rates", cli::checked(&rates, [](const std::string& v) { parse_rates(v); }),
          "Adam step sizes, tried in this order")(
          "variable-length",
          cli::checked(&variable, [](const std::string& v) { parse_range("variable-length", v); }),
          "MIN:MAX: each batch one length drawn in [MIN, MAX], tested at 100 lengths "
          "across it (replaces --lengths)")(
          "transfer-lengths",
          cli::checked(&transfer, [](const std::string& v) { parse_lengths(v); }),
          "after training, also score held-out sets at these T₀ (generalisation)")(
          "train-markers",
          cli::checked(&train_markers,
                       [](const std::string& v) { parse_range("train-markers", v); }),
          "A:B: the second marker only at steps [A, B) in training")(
          "test-markers",
          cli::checked(&test_markers, [](const std::string& v) { parse_range("test-markers", v); }),
          "A:B: a further held-out set with the second marker at [A, B)")(
          "unfused", po::bool_switch(&run.fused)->default_value(false),
          "run ff-pool and mean unfused (the reference: stores [T, N, W])")(
          "output,o", po::value(&cfg.output)->default_value(cfg.output),
          "results table ('-' = stdout); a file's finished rows are kept and skipped");
  cl.group("Training")
      .add_options()("budget-steps", cli::number(&run.budget_steps, cli::at_least(1)),
                     "updates at most per run (the authors': 100000)")(
          "eval-every", cli::number(&run.eval_every, cli::at_least(1)),
          "updates between tests on the held-out set")(
          "eval-batches", cli::number(&run.eval_batches, cli::at_least(1)),
          "held-out batches (of --batch-size sequences)")(
          "batch-size", cli::number(&run.batch_size, cli::at_least(1)), "sequences per update")(
          "max-params", cli::number(&cfg.max_params, cli::at_least(1)),
          "skip a model with more parameters than this (the dense model grows with T)");
  if (!cl.parse(argc, argv)) return false;
  run.fused = !run.fused;  // the switch says --unfused
  if (task == "both") {
    cfg.problems = {pooling::PoolingProblem::kAddition, pooling::PoolingProblem::kMultiplication};
  } else {
    cfg.problems = {pooling::parse_pooling_problem(task)};
  }
  for (const auto& m : split(models, ",")) cfg.kinds.push_back(pooling::parse_pooling_kind(m));
  cfg.learning_rates = parse_rates(rates);
  if (!variable.empty()) {
    std::tie(run.variable_min, run.variable_max) = parse_range("variable-length", variable);
    cfg.lengths = {run.variable_max};
  } else {
    cfg.lengths = parse_lengths(lengths);
  }
  if (!transfer.empty()) cfg.transfer_lengths = parse_lengths(transfer);
  if (!train_markers.empty()) cfg.train_markers = parse_range("train-markers", train_markers);
  if (!test_markers.empty()) cfg.test_markers = parse_range("test-markers", test_markers);
  run.seed = cl.common().seed;
  onednn::set_threads(cl.threads());
  io::check_writable(cfg.output);
  return true;
}

std::string key_of(const std::string& row) {
  size_t end = 0;
  for (size_t column = 0; column < kKeyColumns && end != std::string::npos; ++column) {
    end = row.find('\t', end + (column > 0 ? 1 : 0));
  }
  return row.substr(0, end);
}

// The rows of an earlier results file: none when it does not exist or is not a regular file
// (-o /dev/full, a FIFO: nothing to resume from). Its first bytes must be the header before any
// line is read whole: -o pointed at a large file of anything else is refused at once, not read
// into memory (issue 29).
std::vector<std::string> read_rows(const std::string& path) {
  struct stat info {};
  if (path == "-" || ::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return {};
  if (info.st_size == 0) return {};
  {
    std::ifstream head(path, std::ios::binary);
    std::string start(std::strlen(kHeader) + 1, '\0');
    head.read(start.data(), std::streamsize(start.size()));
    start.resize(size_t(head.gcount()));
    if (start != std::string(kHeader) + "\n" && start != std::string(kHeader) + "\r") {
      throw DataError(path +
                      ":1: not a heed-pooling results table (header); -o names the table "
                      "to continue, or a new file");
    }
  }
  io::LineReader reader(path);
  std::vector<std::string> rows;
  std::string line;
  const size_t columns = split(kHeader, "\t").size();
  while (reader.next(line)) {
    const std::string where = path + ":" + std::to_string(reader.line_number()) + ": ";
    if (reader.line_number() == 1) {
      if (line != kHeader) throw DataError(where + "not a heed-pooling results table (header)");
      continue;
    }
    if (split(line, "\t").size() != columns) {
      throw DataError(where + "expected " + std::to_string(columns) + " columns");
    }
    rows.push_back(line);
  }
  return rows;
}

std::string train_column(const pooling::PoolingRunConfig& run) {
  if (run.variable()) {
    return "variable:" + std::to_string(run.variable_min) + "-" + std::to_string(run.variable_max);
  }
  if (run.task.second_marker_end > 0) {
    return "markers:" + std::to_string(run.task.second_marker_begin) + "-" +
           std::to_string(run.task.second_marker_end);
  }
  return "fixed";
}

std::string key_columns(const pooling::PoolingRunConfig& run) {
  char rate[32];
  std::snprintf(rate, sizeof rate, "%g", double(run.learning_rate));
  return pooling::to_string(run.task.problem) + "\t" +
         std::to_string(run.variable() ? run.variable_max : run.task.min_length) + "\t" +
         train_column(run) + "\t" + pooling::to_string(run.kind) + "\t" + rate;
}

// "T=200:0.981,markers 30-40:0.120": each transfer set's name and accuracy.
std::string transfer_column(const pooling::PoolingRunConfig& run,
                            const pooling::PoolingRunResult& result) {
  std::vector<std::string> items;
  for (size_t i = 0; i < result.transfer_accuracy.size(); ++i) {
    const pooling::PoolingTask& task = run.transfer_tasks[i];
    char item[96];
    if (task.second_marker_end > 0 && task.min_length == run.task.min_length) {
      std::snprintf(item, sizeof item, "markers %lld-%lld:%.4f",
                    static_cast<long long>(task.second_marker_begin),
                    static_cast<long long>(task.second_marker_end), result.transfer_accuracy[i]);
    } else {
      std::snprintf(item, sizeof item, "T=%lld:%.4f", static_cast<long long>(task.min_length),
                    result.transfer_accuracy[i]);
    }
    items.emplace_back(item);
  }
  return items.empty() ? "-" : join(items, ",");
}

std::string format_row(const pooling::PoolingRunConfig& run, const std::string& solved,
                       const pooling::PoolingRunResult& result, const std::string& note) {
  const bool ran = solved == "yes" || solved == "no" || solved == "diverged";
  char numbers[256];
  if (ran) {
    std::snprintf(numbers, sizeof numbers, "%s\t%lld\t%.4f\t%.4f\t%.5f",
                  result.solved ? std::to_string(result.steps_to_solve).c_str() : "-",
                  static_cast<long long>(result.steps), result.best_accuracy, result.accuracy,
                  result.mse);
  } else {
    std::snprintf(numbers, sizeof numbers, "-\t-\t-\t-\t-");
  }
  char tail[128];
  std::snprintf(tail, sizeof tail, "%lld\t%.1f\t%lld\t%lld",
                static_cast<long long>(result.parameters), result.seconds,
                static_cast<long long>(run.budget_steps), static_cast<long long>(run.stop_after));
  return key_columns(run) + "\t" + solved + "\t" + numbers + "\t" +
         (ran ? transfer_column(run, result) : "-") + "\t" + tail + "\t" +
         (note.empty() ? "-" : note);
}

// The authors' bar for a later learning rate: the fewest updates an earlier rate of the same
// task, T, training and model needed to solve (0: none solved yet, no bar).
int64_t earlier_best(const std::vector<std::string>& rows, const std::string& group) {
  int64_t best = 0;
  for (const auto& row : rows) {
    const auto columns = split(row, "\t");
    if (join({columns.begin(), columns.begin() + kKeyColumns - 1}, "\t") != group) continue;
    if (columns[kSolvedColumn] != "yes") continue;
    const int64_t steps = parse_int64(columns[kStepsToSolveColumn]).value_or(0);
    if (steps > 0 && (best == 0 || steps < best)) best = steps;
  }
  return best;
}

std::vector<pooling::PoolingRunConfig> plan(const PoolingCliConfig& cfg) {
  std::vector<pooling::PoolingRunConfig> cells;
  for (auto problem : cfg.problems) {
    for (int64_t length : cfg.lengths) {
      for (auto kind : cfg.kinds) {
        for (float rate : cfg.learning_rates) {
          pooling::PoolingRunConfig run = cfg.run;
          run.task =
              pooling::fixed_length_task(problem, run.variable() ? run.variable_min : length);
          if (cfg.train_markers.second > 0) {
            std::tie(run.task.second_marker_begin, run.task.second_marker_end) = cfg.train_markers;
          }
          for (int64_t transfer : cfg.transfer_lengths) {
            run.transfer_tasks.push_back(pooling::fixed_length_task(problem, transfer));
          }
          if (cfg.test_markers.second > 0) {
            pooling::PoolingTask task = pooling::fixed_length_task(problem, length);
            std::tie(task.second_marker_begin, task.second_marker_end) = cfg.test_markers;
            run.transfer_tasks.push_back(task);
          }
          run.kind = kind;
          run.learning_rate = rate;
          cells.push_back(run);
        }
      }
    }
  }
  return cells;
}

int pooling_main(int argc, char** argv) {
  PoolingCliConfig cfg;
  if (!parse_options(argc, argv, cfg)) return 0;
  std::vector<std::string> rows = read_rows(cfg.output);
  std::set<std::string> done;
  for (const auto& row : rows) done.insert(key_of(row));
  const bool to_file = cfg.output != "-";
  io::LineWriter stdout_writer("-");
  if (!to_file) stdout_writer.write_line(kHeader);
  const auto save = [&] {
    std::string text = std::string(kHeader) + "\n";
    for (const auto& row : rows) text += row + "\n";
    io::write_file_atomically(cfg.output, text);
  };

  std::vector<pooling::PoolingRunConfig> cells;
  for (auto& run : plan(cfg)) {
    if (!done.count(key_columns(run))) cells.push_back(std::move(run));
  }
  cli::Progress bar;
  for (size_t index = 0; index < cells.size(); ++index) {
    pooling::PoolingRunConfig& run = cells[index];
    const std::string key = key_columns(run);
    run.stop_after = earlier_best(rows, key.substr(0, key.rfind('\t')));
    const std::string name = pooling::to_string(run.task.problem) + " T=" + split(key, "\t")[1] +
                             " " + pooling::to_string(run.kind) + " lr " +
                             key.substr(key.rfind('\t') + 1);
    pooling::PoolingRunResult result;
    int64_t model_length = run.longest();
    for (const auto& task : run.transfer_tasks) {
      model_length = std::max(model_length, task.padded_length());
    }
    result.parameters = pooling::PoolingModel::count_parameters(run.kind, model_length, run.width);
    std::string row;
    if (const std::string reason = pooling::not_applicable_reason(run.kind, run.variable());
        !reason.empty()) {
      row = format_row(run, "n/a", result, reason);
    } else if (result.parameters > cfg.max_params) {
      row = format_row(run, "skipped", result,
                       "more parameters than --max-params " + std::to_string(cfg.max_params));
    } else {
      const int64_t limit =
          run.stop_after > 0 ? std::min(run.stop_after, run.budget_steps) : run.budget_steps;
      result = pooling::run_pooling(run, [&](const pooling::PoolingProgress& p) {
        if (!bar.active()) return;
        char text[160];
        std::snprintf(text, sizeof text, "%zu/%zu %s update %lld mse %.4f acc %.3f", index + 1,
                      cells.size(), name.c_str(), static_cast<long long>(p.step), p.train_mse,
                      p.accuracy < 0 ? 0.0 : p.accuracy);
        bar.update((double(index) + double(p.step) / double(limit)) / double(cells.size()), text);
      });
      row = format_row(run,
                       result.diverged ? "diverged"
                       : result.solved ? "yes"
                                       : "no",
                       result, result.diverged ? "stopped on a non-finite loss or weight" : "");
    }
    bar.clear();
    spdlog::info("{}: {}", name, row);
    rows.push_back(row);
    if (to_file) {
      save();
    } else {
      stdout_writer.write_line(row);
      stdout_writer.flush();
    }
  }
  if (to_file && cells.empty()) save();  // nothing left to run: the file exists all the same
  stdout_writer.commit();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return heed::cli::run_tool(argc, argv, "pooling", pooling_main);
}
