// Writes text to stdout ("-") or, atomically, to a file: the data goes to a temporary file
// beside the target, which commit() flushes, fsyncs and renames over it. A target that exists
// and is not a regular file (/dev/null, /dev/stdout, a FIFO) is written directly, like
// stdout: renaming over it would replace the device or pipe by a plain file. A writer destroyed
// without commit() removes its temporary file, so a failed run never leaves a half file; a run
// stopped by bad input keeps the lines it finished in "<target>.partial" (keep_partial()).
// A symbolic link is followed (its target is replaced, the link stays), and a replaced file keeps
// its permissions. Other hard links to a replaced file keep the old contents: that is what an
// atomic replacement means (as with sed -i).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace heed::io {

// The file a tool keeps beside its output target (FILE.partial, FILE.checkpoint): target +
// suffix when target is a regular file or does not exist yet (a file the tool will make); ""
// for stdout ("-") and for a target that is not a regular file (/dev/full, a FIFO), beside which
// nothing may be written (a /dev/full.checkpoint would outlive the run and mislead the next).
std::string side_file_path(const std::string& target, const std::string& suffix);

// The target whose temporary file name is (what the atomic writer makes beside it: the target's
// name, ".tmp-" and six characters of mkstemp), or "" when name is not such a temporary file.
// Names only: for a tool that removes the temporaries a killed run of its own left.
std::string temporary_file_target(const std::string& name);

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
  // Completes the output: flush, fsync and rename for files (an older "<path>.partial" is
  // removed: it belonged to an earlier failed run); flush for stdout.
  void commit();
  // Ends an output cut short by bad input after `lines` complete input lines. stdout is
  // flushed. A file stays as it was; what was written is flushed, fsynced and renamed to
  // partial_path() (when lines is 0 there is nothing to keep: the temporary file and an older
  // partial file are removed). Returns the note for the error message: "; the N lines before
  // it are in <partial_path>", or "" when nothing was kept. Throws WriteError.
  std::string keep_partial(long long lines);

  // Calls to write_line() so far.
  long long lines() const { return lines_; }
  const std::string& path() const { return path_; }
  std::string partial_path() const { return side_file_path(path_, ".partial"); }

 private:
  [[noreturn]] void fail(int err);
  // Flushes, fsyncs and closes the temporary file, then renames it to final_path.
  void rename_temp_file(const std::string& final_path);

  std::string path_;
  std::string target_path_;  // path_, or the file its symbolic links lead to
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  bool direct_ = false;  // stdout or a target that is not a regular file: no temporary file
  bool is_stdout_ = false;
  bool committed_ = false;
  long long lines_ = 0;
  int temp_slot_ = -1;  // registration for remove_temp_files_on_signal()
};

// Installs handlers for SIGINT, SIGTERM and SIGHUP (where not ignored) that remove the
// temporary files of every LineWriter alive, then end the process by the same signal (shell
// status 128 + N): a stop leaves the previous output file as it was and no temporary file
// behind. tools/common's run_tool installs them for every tool; heed-train then installs its own
// graceful stop over SIGINT and SIGTERM.
void remove_temp_files_on_signal();

// While it lives, a stop by one of the signals of remove_temp_files_on_signal() removes path as
// well: a file is unlinked, a directory removed when it is empty by then (after the files). For
// what a process made and must not leave behind when stopped before it wrote anything
// (heed-train's lock file, and the output directory it made).
class RemovedOnStop {
 public:
  enum class Kind { kFile, kEmptyDirectory };
  RemovedOnStop(const std::string& path, Kind kind);
  ~RemovedOnStop();
  RemovedOnStop(const RemovedOnStop&) = delete;
  RemovedOnStop& operator=(const RemovedOnStop&) = delete;

 private:
  int slot_ = -1;
};

// Writes bytes to path atomically (temp file, fsync, rename). Throws WriteError.
void write_file_atomically(const std::string& path, std::string_view bytes);

// Throws WriteError if the directory that would hold path does not exist or is not writable.
void check_writable(const std::string& path);

}  // namespace heed::io
