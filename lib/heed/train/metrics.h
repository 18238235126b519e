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

// The file is opened once, for the whole run, by the trainer's first step (before it takes the
// output directory): a FIFO's reader sees one stream, and waiting for one happens before
// training, holding no lock. A row that cannot be written (a full disk, /dev/full, a reader
// gone) does not stop training, which is the work: it is said once as a warning, no row is
// written after it, and failure() says why, for the tool to end with a write error as it does
// for its log file.
class MetricsWriter {
 public:
  // An empty path writes nothing. WriteError when the file cannot be opened for appending:
  // "PATH: cannot write the metrics file (is a directory)", "cannot write 'PATH': directory
  // 'DIR': WHY" when it is new and its directory cannot take it, else "PATH: cannot write the
  // metrics file: WHY".
  explicit MetricsWriter(std::string path);
  ~MetricsWriter();
  MetricsWriter(const MetricsWriter&) = delete;
  MetricsWriter& operator=(const MetricsWriter&) = delete;

  void write(const MetricsRow& row);
  // "" while every row was written; else "cannot write the metrics file 'PATH': WHY".
  const std::string& failure() const { return failure_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool header_due_ = false;
  std::string failure_;
};

}  // namespace heed::train
