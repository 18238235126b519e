// Parallel text for training and scoring: two line-aligned files, or one file of
// "source ||| target" (fast_align's convention) or "source<TAB>target" lines.
#pragma once

#include <memory>
#include <string>

#include "heed/io/line_reader.h"

namespace heed::io {

class ParallelReader {
 public:
  // Two line-aligned files.
  ParallelReader(const std::string& source_path, const std::string& target_path);
  // One file of "src ||| tgt" or "src<TAB>tgt" lines (decided per line: " ||| " first).
  explicit ParallelReader(const std::string& combined_path);

  // The next pair (without the line ends). False at the end. Throws DataError naming the file
  // and line when one of two files ends before the other, or a combined line has no separator.
  bool next(std::string& source, std::string& target);

  long long line_number() const;
  // "<src>" / "<tgt>" or "<file>" for messages.
  std::string source_name() const;
  std::string target_name() const;

 private:
  std::unique_ptr<LineReader> source_;
  std::unique_ptr<LineReader> target_;  // null for a combined file
  std::string combined_;
};

// Checks that two files have the same number of lines; throws DataError naming both and their
// counts otherwise. Cheap compared with training: run it before any heavy work.
void check_line_counts(const std::string& source_path, const std::string& target_path);

}  // namespace heed::io
