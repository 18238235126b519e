// heed-pooling: Raffel & Ellis's long-term-memory experiment. Is feed-forward attention pooling
// just a dense layer? Trains the pooling models (task.h) on the addition and multiplication
// problems for each sequence length and learning rate, as the authors' released code does, and
// writes one TSV row per run (docs/studies/pooling.md).
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/progress.h"
#include "common/run.h"
#include "heed/common/error.h"
#include "heed/common/memory.h"
#include "heed/common/strings.h"
#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"
#include "heed/train/signals.h"
#include "pooling/options.h"

namespace {

using namespace heed;

const char* const kHeader =
    "task\tT\ttrain\tmodel\tlr\tsolved\tsteps_to_solve\tsteps\tbest_accuracy\tfinal_accuracy\t"
    "final_mse\ttransfer\tparams\tseconds\tbudget_steps\tstop_after\tnote";
// --bias-out's table: a positional run's key columns, then one row per position.
const char* const kBiasHeader = "task\tT\ttrain\tmodel\tlr\tposition\tbias";
// --marked-out's table: an attention run's key columns, then the held-out mean of α at the two
// marked steps and the most its score's bound allows them ("-": no bound).
const char* const kMarkedHeader = "task\tT\ttrain\tmodel\tlr\tmarked_weight\tmarked_bound";
// task, T, train, model, lr: a row's identity. train says how the training sequences were
// drawn: "fixed" (lengths in [T, 1.1·T)), "variable:MIN-MAX" or "markers:A-B" (N₂ restricted).
constexpr size_t kKeyColumns = 5;
constexpr size_t kSolvedColumn = 5, kStepsToSolveColumn = 6;

std::string key_of(const std::string& row) {
  size_t end = 0;
  for (size_t column = 0; column < kKeyColumns && end != std::string::npos; ++column) {
    end = row.find('\t', end + (column > 0 ? 1 : 0));
  }
  return row.substr(0, end);
}

// The rows of an earlier table written under header (a results file, --bias-out's): none when
// it does not exist or is not a regular file (-o /dev/full, a FIFO: nothing to resume from). Its
// first bytes must be the header before any line is read whole: -o pointed at a large file of
// anything else is refused at once, not read into memory (issue 29).
std::vector<std::string> read_rows(const std::string& path, const std::string& header,
                                   const char* what) {
  struct stat info {};
  if (path == "-" || ::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return {};
  if (info.st_size == 0) return {};
  const std::string refusal = std::string("not a heed-pooling ") + what +
                              " (header); name the table to continue, or a "
                              "new file";
  {
    std::ifstream head(path, std::ios::binary);
    std::string start(header.size() + 1, '\0');
    head.read(start.data(), std::streamsize(start.size()));
    start.resize(size_t(head.gcount()));
    if (start != header + "\n" && start != header + "\r") {
      throw DataError(path + ":1: " + refusal);
    }
  }
  io::LineReader reader(path);
  std::vector<std::string> rows;
  std::string line;
  const size_t columns = split(header, "\t").size();
  while (reader.next(line)) {
    const std::string where = path + ":" + std::to_string(reader.line_number()) + ": ";
    if (reader.line_number() == 1) {
      if (line != header) throw DataError(where + refusal);
      continue;
    }
    if (split(line, "\t").size() != columns) {
      throw DataError(where + "expected " + std::to_string(columns) + " columns");
    }
    rows.push_back(line);
  }
  return rows;
}

void write_table(const std::string& path, const std::string& header,
                 const std::vector<std::string>& rows) {
  std::string text = header + "\n";
  for (const auto& row : rows) text += row + "\n";
  io::write_file_atomically(path, text);
}

// A table beside the results (--bias-out, --marked-out): rows of a run's key columns and its
// values; a run trained again replaces its rows, the other runs' rows are kept. Written
// atomically after each run. An empty path: none.
class SideTable {
 public:
  SideTable(std::string path, std::string header, const char* what)
      : path_(std::move(path)), header_(std::move(header)) {
    if (!path_.empty()) rows_ = read_rows(path_, header_, what);
  }
  void replace(const std::string& key, const std::vector<std::string>& values) {
    if (path_.empty()) return;
    rows_.erase(std::remove_if(rows_.begin(), rows_.end(),
                               [&](const std::string& row) { return key_of(row) == key; }),
                rows_.end());
    for (const std::string& value : values) rows_.push_back(key + "\t" + value);
    write_table(path_, header_, rows_);
  }

 private:
  std::string path_, header_;
  std::vector<std::string> rows_;
};

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
         train_column(run) + "\t" + pooling::model_name(run.kind, run.fixed_scale) + "\t" + rate;
}

// "T=200:0.981,markers 30-40:0.120": each transfer set's name and accuracy.
std::string transfer_column(const pooling::PoolingRunConfig& run,
                            const pooling::PoolingRunResult& result) {
  std::vector<std::string> items;
  for (size_t i = 0; i < result.transfer_accuracy.size(); ++i) {
    const pooling::PoolingTask& task = run.transfer_tasks[i];
    char item[96];
    if (task.second_marker_end > 0) {  // --test-markers, at the run's T (variable: its longest)
      std::snprintf(item, sizeof item, "%smarkers %lld-%lld:%.4f",
                    run.variable() ? ("T=" + std::to_string(task.min_length) + " ").c_str() : "",
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

// The held-out sets beyond the run's own, by name ("T=200,markers 30-40"): part of a
// checkpoint's key.
std::string transfer_names(const pooling::PoolingRunConfig& run) {
  std::vector<std::string> names;
  for (const pooling::PoolingTask& task : run.transfer_tasks) {
    names.push_back("T=" + std::to_string(task.min_length) + " markers " +
                    std::to_string(task.second_marker_begin) + "-" +
                    std::to_string(task.second_marker_end));
  }
  return join(names, ",");
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

std::vector<pooling::PoolingRunConfig> plan(const pooling::PoolingCliConfig& cfg) {
  std::vector<pooling::PoolingRunConfig> cells;
  for (auto problem : cfg.problems) {
    for (int64_t length : cfg.lengths) {
      for (const auto& [kind, fixed_scale] : cfg.models) {
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
          run.fixed_scale = fixed_scale;
          run.learning_rate = rate;
          cells.push_back(run);
        }
      }
    }
  }
  return cells;
}

// A run refused before the table's header is written (ConfigError naming the run): what
// run_pooling would refuse part way, and sizes whose batches cannot fit in memory — a coarse
// bound in f32 of the held-out batches (inputs of 2 values a step) and an update's activations
// and their gradients ([batch, T, width], four of them), in doubles so that nothing overflows.
void check_run(const pooling::PoolingRunConfig& run, const std::string& name) {
  if (!pooling::not_applicable_reason(run).empty()) return;  // an "n/a" row, not an error
  try {
    run.validate();
  } catch (const ConfigError& e) {
    throw ConfigError(name + ": " + e.what());
  }
  const double sets = 1.0 + double(run.transfer_tasks.size());
  const double rows = double(run.batch_size) * double(run.model_length());
  const double bytes =
      4.0 * rows * (2.0 * (double(run.eval_batches) * sets + 1.0) + 4.0 * double(run.width));
  check_fits_in_memory(bytes, "--batch-size " + std::to_string(run.batch_size) +
                                  " --eval-batches " + std::to_string(run.eval_batches) + ": " +
                                  name);
}

std::string run_name(const pooling::PoolingRunConfig& run) {
  const std::string key = key_columns(run);
  return pooling::to_string(run.task.problem) + " T=" + split(key, "\t")[1] + " " +
         pooling::model_name(run.kind, run.fixed_scale) + " lr " + key.substr(key.rfind('\t') + 1);
}

int pooling_main(int argc, char** argv) {
  pooling::PoolingCliConfig cfg;
  if (!pooling::parse_options(argc, argv, cfg)) return 0;
  const std::vector<pooling::PoolingRunConfig> planned = plan(cfg);
  for (const auto& run : planned) check_run(run, run_name(run));
  std::vector<std::string> rows = read_rows(cfg.output, kHeader, "results table");
  SideTable bias(cfg.bias_output, kBiasHeader, "bias table");
  SideTable marked(cfg.marked_output, kMarkedHeader, "marked-weight table");
  std::set<std::string> done;
  for (const auto& row : rows) done.insert(key_of(row));
  const bool to_file = cfg.output != "-";
  io::LineWriter stdout_writer("-");
  if (!to_file) stdout_writer.write_line(kHeader);
  const auto save = [&] { write_table(cfg.output, kHeader, rows); };

  std::vector<pooling::PoolingRunConfig> cells;
  for (const auto& run : planned) {
    if (!done.count(key_columns(run))) cells.push_back(run);
  }
  // With -o FILE the run in progress keeps FILE.checkpoint: Ctrl-C (or SIGTERM) saves it and
  // exits 130 (143); the next call with the same FILE continues that run where it stopped. None
  // beside stdout or a FILE that is not a regular file (/dev/full, a FIFO).
  const std::string checkpoint_path = io::side_file_path(cfg.output, ".checkpoint");
  train::ignore_broken_pipes();
  cli::Progress bar;
  for (size_t index = 0; index < cells.size(); ++index) {
    if (const int signal = train::stop_signal()) throw Interrupted(signal);
    pooling::PoolingRunConfig& run = cells[index];
    const std::string key = key_columns(run);
    run.stop_after = earlier_best(rows, key.substr(0, key.rfind('\t')));
    const std::string name = run_name(run);
    pooling::PoolingRunResult result;
    result.parameters =
        pooling::PoolingModel::count_parameters(run.kind, run.model_length(), run.width);
    std::string row;
    if (const std::string reason = pooling::not_applicable_reason(run); !reason.empty()) {
      row = format_row(run, "n/a", result, reason);
    } else if (result.parameters > cfg.max_params) {
      row = format_row(run, "skipped", result,
                       "more parameters than --max-params " + std::to_string(cfg.max_params));
    } else {
      const int64_t limit =
          run.stop_after > 0 ? std::min(run.stop_after, run.budget_steps) : run.budget_steps;
      pooling::PoolingCheckpoint checkpoint;
      if (!checkpoint_path.empty()) {
        checkpoint.path = checkpoint_path;
        checkpoint.key = key;
        for (const int64_t n : {run.budget_steps, run.stop_after, int64_t(run.seed), run.batch_size,
                                run.eval_every, run.eval_batches, run.width, int64_t(run.fused)}) {
          checkpoint.key += "\t" + std::to_string(n);
        }
        checkpoint.key += "\t" + transfer_names(run);
        checkpoint.every = run.eval_every;
      }
      result = pooling::run_pooling(
          run,
          [&](const pooling::PoolingProgress& p) {
            if (!bar.active()) {
              // A log line per test instead (info: shown with -v), so that a long run's log
              // keeps its learning curve.
              if (p.step % run.eval_every == 0) {
                spdlog::info("{}: update {}, held-out accuracy {:.4f}, batch mse {:.5f} ({})", name,
                             p.step, p.accuracy, p.train_mse, cli::format_duration(p.seconds));
              }
              return;
            }
            char text[160];
            std::snprintf(text, sizeof text, "%zu/%zu %s update %lld mse %.4f acc %.3f", index + 1,
                          cells.size(), name.c_str(), static_cast<long long>(p.step), p.train_mse,
                          p.accuracy < 0 ? 0.0 : p.accuracy);
            bar.update((double(index) + double(p.step) / double(limit)) / double(cells.size()),
                       text);
          },
          checkpoint);
      row = format_row(run,
                       result.diverged ? "diverged"
                       : result.solved ? "yes"
                                       : "no",
                       result, result.diverged ? "stopped on a non-finite loss or weight" : "");
      if (!result.positional_bias.empty()) {
        std::vector<std::string> values;
        for (size_t t = 0; t < result.positional_bias.size(); ++t) {
          char value[48];
          std::snprintf(value, sizeof value, "%zu\t%.6g", t, double(result.positional_bias[t]));
          values.emplace_back(value);
        }
        bias.replace(key, values);
      }
      if (result.marked_weight >= 0) {
        char value[64];
        std::snprintf(value, sizeof value, "%.6f\t", result.marked_weight);
        std::string bound = "-";
        if (std::isfinite(result.marked_bound)) {
          char text[32];
          std::snprintf(text, sizeof text, "%.6f", result.marked_bound);
          bound = text;
        }
        marked.replace(key, {value + bound});
      }
    }
    bar.clear();
    spdlog::info("{}: {}", name, row);
    rows.push_back(row);
    if (to_file) {
      save();
      if (!checkpoint_path.empty()) std::remove(checkpoint_path.c_str());  // the row holds it now
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
