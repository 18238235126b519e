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

void MetricsWriter::write(const MetricsRow& row) const {
  if (path_.empty()) return;
  namespace fs = std::filesystem;
  const bool fresh = !fs::exists(path_) || fs::file_size(path_) == 0;
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
