// heed-train's output directory, owned by one run at a time: an exclusive lock (flock on
// DIR/.lock, which holds the owner's pid and is released by the kernel however the process ends),
// the refusal to start over another run's checkpoint, and the removal of the temporary files a
// killed run left behind.
#pragma once

#include <string>

namespace heed::train {

class OutputDirLock {
 public:
  // Takes the lock on dir (which must exist). Busy naming the holder's pid if another process
  // has it; WriteError if the lock file cannot be made.
  explicit OutputDirLock(const std::string& dir);
  ~OutputDirLock();
  OutputDirLock(const OutputDirLock&) = delete;
  OutputDirLock& operator=(const OutputDirLock&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

// Removes dir's "*.tmp-*" files: the atomic writers' temporaries that a run killed in the middle
// of a save leaves (only call it holding the lock: then no writer of this directory is alive).
// Returns how many went.
int remove_stale_temporaries(const std::string& dir);

}  // namespace heed::train
