#include "heed/train/output_dir.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "heed/common/error.h"

namespace heed::train {
namespace {

namespace fs = std::filesystem;

// Attempts before giving up when the lock file keeps being replaced under us (a holder that
// abandons removes it; a new one is made on the next attempt).
constexpr int kLockAttempts = 100;

// The pid in a lock file, if it names a live process.
std::string live_pid_in(int fd) {
  char text[32] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  if (n <= 0) return {};
  char* end = nullptr;
  const long pid = std::strtol(text, &end, 10);
  if (pid <= 0 || (*end != '\n' && *end != '\0')) return {};
  if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH) return {};
  return std::to_string(pid);
}

// The pid of the process holding the lock on fd's file. The holder writes it just after taking
// the lock, so a run refused in between reads nothing, or a finished run's pid: it waits a
// little (up to 0.2 s) for a live one before saying it does not know.
std::string holder_pid(int fd) {
  for (int wait = 0; wait < 200; ++wait) {
    const std::string pid = live_pid_in(fd);
    if (!pid.empty()) return pid;
    ::usleep(1000);
  }
  return "unknown";
}

}  // namespace

OutputDirLock::OutputDirLock(const std::string& dir)
    : dir_(dir), path_((fs::path(dir) / ".lock").string()) {
  // Whether the directory can be made where it is asked for, said before anything is made: the
  // nearest part of the path that exists must be a directory this process may write into.
  fs::path existing = fs::absolute(dir_);
  while (!fs::exists(existing) && existing.has_parent_path() &&
         existing != existing.parent_path()) {
    existing = existing.parent_path();
  }
  if (!fs::is_directory(existing)) {
    throw WriteError(dir_ + ": cannot create the output directory: '" + existing.string() +
                     "' is not a directory");
  }
  if (::access(existing.c_str(), W_OK) != 0) {
    throw WriteError(dir_ + ": cannot create the output directory: " + errno_message(errno));
  }
  for (int attempt = 0; attempt < kLockAttempts; ++attempt) {
    std::error_code ec;
    // A directory this run makes, and its lock file, are named to the stop handler before they
    // exist: a signal between making the lock file and the end of this loop (a stop at any time
    // before the first update leaves nothing) would otherwise leave a directory holding a lock.
    if (!made_dir_ && !fs::exists(dir_)) {
      remove_lock_on_stop_ =
          std::make_unique<io::RemovedOnStop>(path_, io::RemovedOnStop::Kind::kFile);
      remove_dir_on_stop_ =
          std::make_unique<io::RemovedOnStop>(dir_, io::RemovedOnStop::Kind::kEmptyDirectory);
    }
    if (fs::create_directories(dir_, ec)) made_dir_ = true;
    if (!made_dir_) {
      remove_lock_on_stop_.reset();  // another process made it: its files are not ours
      remove_dir_on_stop_.reset();
    }
    if (ec || !fs::is_directory(dir_)) {
      throw WriteError(dir_ + ": cannot create the output directory" +
                       (ec ? ": " + ec.message() : std::string(": not a directory")));
    }
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd_ < 0 && errno == ENOENT) continue;  // the directory went (an abandoning holder)
    if (fd_ < 0 && errno == ELOOP) {
      throw WriteError(path_ +
                       ": the lock file is a symbolic link, which heed-train does not "
                       "follow; remove it");
    }
    if (fd_ < 0) throw WriteError(path_ + ": cannot create the lock file: " + errno_message(errno));
    struct stat held {};
    if (::fstat(fd_, &held) != 0 || !S_ISREG(held.st_mode) || held.st_nlink != 1) {
      const bool regular = S_ISREG(held.st_mode);
      ::close(fd_);
      fd_ = -1;
      throw WriteError(path_ +
                       (regular ? ": the lock file has other hard links"
                                : ": the lock file is not a regular file") +
                       ", which heed-train does not write into; remove it");
    }
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string pid = err == EWOULDBLOCK ? holder_pid(fd_) : std::string();
      ::close(fd_);
      fd_ = -1;
      if (err == EWOULDBLOCK) {
        throw Busy(dir_ + ": another heed-train (pid " + pid +
                   ") is training into this directory; wait for it, or use another -o");
      }
      throw WriteError(path_ + ": cannot lock: " + errno_message(err));
    }
    // The file locked must still be the one at path_: a holder abandoning the directory
    // removes it, and a lock on the removed file would let a third run lock a new one beside us.
    struct stat linked {};
    if (::stat(path_.c_str(), &linked) != 0 || linked.st_ino != held.st_ino ||
        linked.st_dev != held.st_dev) {
      ::close(fd_);
      fd_ = -1;
      continue;
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd_, 0) != 0 ||
        ::pwrite(fd_, pid.data(), pid.size(), 0) != ssize_t(pid.size())) {
      const int err = errno;
      abandon();
      throw WriteError(path_ + ": cannot write the lock file: " + errno_message(err));
    }
    return;
  }
  throw WriteError(path_ + ": cannot lock: the lock file was replaced " +
                   std::to_string(kLockAttempts) + " times in a row");
}

OutputDirLock::~OutputDirLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

void OutputDirLock::abandon() {
  if (fd_ < 0) return;
  if (made_dir_) {
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());  // fails, and keeps it, unless empty
  }
  remove_lock_on_stop_.reset();
  remove_dir_on_stop_.reset();
  ::close(fd_);
  fd_ = -1;
}

bool is_run_file(const std::string& name, int64_t* step) {
  if (step) *step = -1;
  if (name == "checkpoint.heed" || name == "model.heed") return true;
  const std::string prefix = "model.step-", suffix = ".heed";
  if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return false;
  }
  const std::string digits =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  if (step) *step = std::stoll(digits);
  return true;
}

std::string kept_model_name(int64_t step) {
  return "model.step-" + std::to_string(step) + ".heed";
}

int remove_stale_temporaries(const std::string& dir) {
  int removed = 0;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const std::string target = io::temporary_file_target(name);
    if (!(is_run_file(target) || target == kCurvesFileName) || !entry.is_regular_file(ec)) {
      continue;
    }
    if (fs::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

}  // namespace heed::train
