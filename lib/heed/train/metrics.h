// The --metrics-file of heed-train: one TSV row every --log-every updates and at every validation
// (or at the end of a run without validation data), appended, with a header when the file is new
// or empty. The last column names what happened at that row: "best" (a new best model),
// "lr-decay", "early-stop" (training stops here), separated by commas; empty for none.
#pragma once

#include <cstdint>
#include <string>

namespace heed::train {

struct MetricsRow {
  int64_t step = 0;
  int64_t epoch = 0;  // one-based
  double loss = 0;    // mean training loss since the last row (NaN: none)
  double lr = 0;
  double tokens_per_second = 0;
  double valid_ppl = 0;  // NaN: no validation
  double valid_bleu = 0;
  double elapsed = 0;
  std::string event;
};

class MetricsWriter {
 public:
  explicit MetricsWriter(std::string path) : path_(std::move(path)) {}  // empty: writes nothing
  void write(const MetricsRow& row);                                    // WriteError on failure

 private:
  std::string path_;
  bool header_written_ = false;  // by this writer (a FIFO or /dev/stderr has no size to look at)
};

}  // namespace heed::train
