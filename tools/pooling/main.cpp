// heed-pooling: Raffel & Ellis's long-term-memory experiment. Is feed-forward attention pooling
// just a dense layer? Trains ff-pool, mean and dense models on the addition and multiplication
// problems for each sequence length and writes one TSV row per run (docs/attention.md).
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <string>
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
    "task\tT\tlengths\tmodel\tsolved\tsteps_to_solve\tsteps\tfinal_accuracy\tfinal_mse\tparams\t"
    "seconds\tbudget_steps\tbudget_seconds\tnote";
constexpr size_t kKeyColumns = 4;  // task, T, lengths, model: a row's identity

struct PoolingCliConfig {
  std::vector<pooling::PoolingProblem> problems;
  std::vector<int64_t> lengths;
  std::vector<pooling::PoolingKind> kinds;
  pooling::PoolingRunConfig run;  // task and kind are set per row
  int64_t max_params = 200000000;
  std::string output = "-";
};

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

bool parse_options(int argc, char** argv, PoolingCliConfig& cfg) {
  cli::CommandLine cl({"pooling", "[options] [-o RESULTS.tsv]",
                       "Raffel & Ellis's long-term-memory problems (addition, multiplication): "
                       "trains feed-forward attention pooling, mean pooling and a dense layer "
                       "over the flattened sequence for each length T until 99% of a held-out "
                       "set is within 0.04 of the target or the budget is spent, and writes one "
                       "TSV row per task, T and model. With -o, rows already in the file are "
                       "kept and not run again.",
                       LogLevel::kWarn, 1});
  std::string task = "both", lengths = "50,100,500,1000,5000,10000", models = "ff-pool,mean,dense";
  bool variable = false;
  pooling::PoolingRunConfig& run = cfg.run;
  run.budget_steps = 20000;
  cl.group("Experiment")
      .add_options()(
          "task",
          cli::checked(&task,
                       [](const std::string& v) {
                         cli::check_choice("task", v, {"addition", "multiplication", "both"});
                       }),
          "addition, multiplication or both")(
          "lengths", cli::checked(&lengths, [](const std::string& v) { parse_lengths(v); }),
          "sequence lengths T (comma-separated)")(
          "models",
          cli::checked(&models,
                       [](const std::string& list) {
                         for (const auto& m : split(list, ",")) pooling::parse_pooling_kind(m);
                       }),
          "ff-pool, mean, dense (comma-separated)")(
          "variable-length", po::bool_switch(&variable),
          "each sequence's length drawn uniformly in [T/2, T] (dense: not applicable)")(
          "output,o", po::value(&cfg.output)->default_value(cfg.output),
          "results table ('-' = stdout); a file's finished rows are kept and skipped");
  cl.group("Training")
      .add_options()("budget-steps", cli::number(&run.budget_steps, cli::at_least(0)),
                     "give up after this many steps (0 = no step limit)")(
          "budget-seconds", cli::number(&run.budget_seconds, cli::at_least(0)),
          "give up after this many seconds of a run (0 = no time limit)")(
          "eval-every", cli::number(&run.eval_every, cli::at_least(1)),
          "steps between evaluations on the held-out set")(
          "eval-size", cli::number(&run.eval_size, cli::at_least(1)), "held-out sequences")(
          "batch-size", cli::number(&run.batch_size, cli::at_least(1)), "sequences per step")(
          "learning-rate", cli::number(&run.learning_rate, cli::above(0)), "Adam's step size")(
          "max-params", cli::number(&cfg.max_params, cli::at_least(1)),
          "skip a model with more parameters than this (the dense model grows with T)");
  if (!cl.parse(argc, argv)) return false;
  if (run.budget_steps == 0 && run.budget_seconds == 0) {
    throw ConfigError("--budget-steps and --budget-seconds cannot both be 0");
  }
  if (task == "both") {
    cfg.problems = {pooling::PoolingProblem::kAddition, pooling::PoolingProblem::kMultiplication};
  } else {
    cfg.problems = {pooling::parse_pooling_problem(task)};
  }
  cfg.lengths = parse_lengths(lengths);
  for (const auto& m : split(models, ",")) cfg.kinds.push_back(pooling::parse_pooling_kind(m));
  run.task.variable_length = variable;
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

std::string format_row(const pooling::PoolingRunConfig& run, const std::string& solved,
                       const pooling::PoolingRunResult& result, const std::string& note) {
  const bool ran = solved == "yes" || solved == "no";
  char numbers[256];
  if (ran) {
    std::snprintf(numbers, sizeof numbers, "%s\t%lld\t%.4f\t%.5f",
                  result.solved ? std::to_string(result.steps_to_solve).c_str() : "-",
                  static_cast<long long>(result.steps), result.accuracy, result.mse);
  } else {
    std::snprintf(numbers, sizeof numbers, "-\t-\t-\t-");
  }
  char tail[128];
  std::snprintf(tail, sizeof tail, "%lld\t%.1f\t%lld\t%g",
                static_cast<long long>(result.parameters), result.seconds,
                static_cast<long long>(run.budget_steps), run.budget_seconds);
  return pooling::to_string(run.task.problem) + "\t" + std::to_string(run.task.length) + "\t" +
         (run.task.variable_length ? "variable" : "fixed") + "\t" + pooling::to_string(run.kind) +
         "\t" + solved + "\t" + numbers + "\t" + tail + "\t" + (note.empty() ? "-" : note);
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
  for (auto problem : cfg.problems) {
    for (int64_t length : cfg.lengths) {
      for (auto kind : cfg.kinds) {
        pooling::PoolingRunConfig run = cfg.run;
        run.task.problem = problem;
        run.task.length = length;
        run.kind = kind;
        if (done.count(key_of(format_row(run, "-", {}, "")))) continue;
        cells.push_back(run);
      }
    }
  }
  cli::Progress bar;
  for (size_t index = 0; index < cells.size(); ++index) {
    const pooling::PoolingRunConfig& run = cells[index];
    const std::string name = pooling::to_string(run.task.problem) +
                             " T=" + std::to_string(run.task.length) + " " +
                             pooling::to_string(run.kind);
    pooling::PoolingRunResult result;
    result.parameters =
        pooling::PoolingModel::count_parameters(run.kind, run.task.length, run.width);
    std::string row;
    if (const std::string reason = pooling::not_applicable_reason(run.kind, run.task);
        !reason.empty()) {
      row = format_row(run, "n/a", result, reason);
    } else if (result.parameters > cfg.max_params) {
      row = format_row(run, "skipped", result,
                       "more parameters than --max-params " + std::to_string(cfg.max_params));
    } else {
      result = pooling::run_pooling(run, [&](const pooling::PoolingProgress& p) {
        if (!bar.active()) return;
        const double within =
            std::max(run.budget_steps > 0 ? double(p.step) / double(run.budget_steps) : 0.0,
                     run.budget_seconds > 0 ? p.seconds / run.budget_seconds : 0.0);
        char text[160];
        std::snprintf(text, sizeof text, "%zu/%zu %s step %lld mse %.4f acc %.3f", index + 1,
                      cells.size(), name.c_str(), static_cast<long long>(p.step), p.train_mse,
                      p.accuracy < 0 ? 0.0 : p.accuracy);
        bar.update((double(index) + std::min(within, 1.0)) / double(cells.size()), text);
      });
      row = format_row(run, result.solved ? "yes" : "no", result, "");
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
