#include "heed/train/metrics.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "heed/common/error.h"

namespace heed::train {
namespace {

// Blank for NaN (no value), else four decimals.
std::string optional_number(double value) {
  if (std::isnan(value)) return std::string();
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", value);
  return text;
}

}  // namespace

void MetricsWriter::write(const MetricsRow& row) {
  if (path_.empty()) return;
  namespace fs = std::filesystem;
  // A regular file gets the header when it is new or empty; anything else (/dev/null, a FIFO,
  // /dev/stderr) once per writer.
  std::error_code ec;
  const fs::file_status status = fs::status(path_, ec);
  const bool fresh =
      fs::is_regular_file(status) ? fs::file_size(path_, ec) == 0 || ec : !header_written_;
  header_written_ = true;
  std::ofstream out(path_, std::ios::app);
  if (fresh)
    out << "step\tepoch\tloss\tperplexity\tlr\ttokens_per_s\tval_ppl\tval_bleu\telapsed_s\tevent\n";
  char line[512];
  std::snprintf(line, sizeof line, "%lld\t%lld\t%.5f\t%.4f\t%.3g\t%.0f\t%s\t%s\t%.1f\t%s\n",
                static_cast<long long>(row.step), static_cast<long long>(row.epoch), row.loss,
                std::exp(row.loss), row.lr, row.tokens_per_second,
                optional_number(row.valid_ppl).c_str(), optional_number(row.valid_bleu).c_str(),
                row.elapsed, row.event.c_str());
  out << line;
  if (!out) throw WriteError(path_ + ": " + errno_message(errno));
}

}  // namespace heed::train
