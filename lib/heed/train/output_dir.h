// heed-train's output directory, owned by one run at a time: an exclusive lock (flock on
// DIR/.lock, which holds the owner's pid and is released by the kernel however the process ends),
// the files a run writes there, and the removal of the temporary files a killed run of its own
// left behind. Only the lock's holder changes anything in the directory, and only while it holds
// the lock: a run refused because another holds it (Busy) touches nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "heed/io/line_writer.h"

namespace heed::train {

class OutputDirLock {
 public:
  // Makes dir (and its parents) when missing and takes the lock. Busy naming the holder's pid
  // if another process has it; WriteError if dir cannot be made, or the lock file cannot be made
  // or is not a regular file of its own (a symbolic link is not followed: in a shared directory
  // it could point at any file this process may write, which the pid would overwrite).
  explicit OutputDirLock(const std::string& dir);
  ~OutputDirLock();  // releases the lock; the file stays for the next run
  OutputDirLock(const OutputDirLock&) = delete;
  OutputDirLock& operator=(const OutputDirLock&) = delete;

  // For a run that ends having written nothing it must keep: when this lock made the directory,
  // removes the lock file and the directory if it is empty by then, while still holding the
  // lock; then releases it. A stop by a signal before the run saves anything does the same
  // (io::RemovedOnStop), so no directory is left that holds nothing but a lock. A directory
  // that was there keeps its lock file, as after any run.
  void abandon();

  const std::string& path() const { return path_; }

 private:
  std::string dir_, path_;
  int fd_ = -1;
  bool made_dir_ = false;
  std::unique_ptr<io::RemovedOnStop> remove_lock_on_stop_, remove_dir_on_stop_;
};

// The files a run writes into its directory: checkpoint.heed, model.heed and the kept models
// model.step-K.heed (K its step, returned through step; -1 for the others).
bool is_run_file(const std::string& name, int64_t* step = nullptr);
// "model.step-K.heed".
std::string kept_model_name(int64_t step);
// The learning curves a run redraws at every validation (train/curves.h). Not a run file: a new
// run replaces it at its first validation.
inline constexpr const char* kCurvesFileName = "curves.svg";

// Removes dir's temporary files of run files and of the curves (io::temporary_file_target): what
// the atomic
// writers leave when a run is killed in the middle of a save. Only call it holding the lock:
// then no writer of this directory is alive. Any other file is left alone, whatever its name.
// Returns how many went.
int remove_stale_temporaries(const std::string& dir);

}  // namespace heed::train
