// Reads lines in batches for streaming filters (heed-translate): a batch holds every complete
// line that is available without waiting, up to a maximum, and waits only when none is. So a
// filter fed a whole file works on large batches, and one used as a co-process (write a line,
// read a line, input still open) answers each line at once.
#pragma once

#include <exception>
#include <string>
#include <vector>

namespace heed::io {

class BatchReader {
 public:
  // path "-" = stdin. Throws FileError if the file cannot be opened.
  explicit BatchReader(const std::string& path);
  ~BatchReader();
  BatchReader(const BatchReader&) = delete;
  BatchReader& operator=(const BatchReader&) = delete;

  // Replaces lines with the next batch (at most max_lines, at least one unless the input has
  // ended): lines without "\n" and without one "\r" before it, the first without a leading
  // byte order mark. Returns false at the end.
  bool next_batch(std::vector<std::string>& lines, size_t max_lines);

  // Number of lines returned so far (the last line's 1-based number).
  long long lines_read() const { return lines_read_; }
  // The share of a regular file's bytes returned as lines so far (0 … 1), for progress; -1 for
  // a pipe or terminal, whose size is not known.
  double fraction_read() const {
    return size_ > 0 ? double(bytes_returned_) / double(size_) : size_ == 0 ? 1.0 : -1.0;
  }
  std::string display_name() const;

 private:
  // Reads once from the descriptor (waiting if block); false at end of input.
  bool fill(bool block);
  bool take_line(std::string& line);

  std::string path_;
  int fd_ = -1;
  bool owns_fd_ = false;
  bool eof_ = false;
  std::string buffer_;
  size_t start_ = 0;    // first unread byte of buffer_
  size_t scanned_ = 0;  // bytes after start_ known to hold no line end
  long long lines_read_ = 0;
  long long size_ = -1;  // a regular file's size in bytes; -1 for a stream
  long long bytes_returned_ = 0;
  bool regular_ = false;              // a regular file (else lines are capped: kMaxStreamLineBytes)
  std::exception_ptr pending_error_;  // raised by the next call, after the lines before it
};

}  // namespace heed::io
