// heed-pooling: Raffel & Ellis's long-term-memory experiment. Is feed-forward attention pooling
// just a dense layer? Trains ff-pool, mean and dense models on the addition and multiplication
// problems for each sequence length and writes one TSV row per run (docs/attention.md).
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "common/progress.h"
#include "common/run.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"
#include "pooling/options.h"

namespace {

using namespace heed;

const char* const kHeader =
    "task\tT\tlengths\tmodel\tsolved\tsteps_to_solve\tsteps\tfinal_accuracy\tfinal_mse\tparams\t"
    "seconds\tbudget_steps\tbudget_seconds\tnote";
constexpr size_t kKeyColumns = 4;  // task, T, lengths, model: a row's identity

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
  pooling::PoolingCliConfig cfg;
  if (!pooling::parse_options(argc, argv, cfg)) return 0;
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
