// Writes text to stdout ("-") or, atomically, to a file: the data goes to a temporary file
// beside the target, which commit() flushes, fsyncs and renames over it. A writer destroyed
// without commit() removes its temporary file, so a failed run never leaves a half file.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace heed::io {

class LineWriter {
 public:
  explicit LineWriter(const std::string& path);
  ~LineWriter();
  LineWriter(const LineWriter&) = delete;
  LineWriter& operator=(const LineWriter&) = delete;

  void write(std::string_view text);
  // text followed by "\n".
  void write_line(std::string_view text);
  // Pushes buffered data to the OS (stdout: for co-process use).
  void flush();
  // Completes the output: flush, fsync and rename for files; flush for stdout.
  void commit();

  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(int err);

  std::string path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  bool is_stdout_ = false;
  bool committed_ = false;
};

// Writes bytes to path atomically (temp file, fsync, rename). Throws WriteError.
void write_file_atomically(const std::string& path, std::string_view bytes);

// Throws WriteError if the directory that would hold path does not exist or is not writable.
void check_writable(const std::string& path);

// Removes the temporary files of every live LineWriter. Async-signal-safe: a tool killed by
// SIGINT or SIGTERM calls it from its handler so that no half file is left beside a target.
void remove_temporary_files() noexcept;

}  // namespace heed::io
