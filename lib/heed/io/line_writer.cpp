#include "heed/io/line_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "heed/common/error.h"

namespace heed::io {
namespace {

std::string directory_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

void fsync_directory(const std::string& path) {
  int fd = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// Paths a signal handler may remove: temporary files, and what RemovedOnStop registers. The
// handler may only read memory that no one frees under it, so paths are copied into fixed
// slots: kFree → kClaimed (being written) → kReady (the handler may remove it) → kFree.
constexpr int kTempSlots = 32;
enum SlotState : int { kFree, kClaimed, kReady };
struct TempSlot {
  std::atomic<int> state{kFree};
  bool directory = false;  // removed with rmdir (only when empty), after the files
  char path[4096];
};
TempSlot g_temp_slots[kTempSlots];

int register_temp_file(const std::string& path, bool directory = false) {
  if (path.size() >= sizeof g_temp_slots[0].path) return -1;
  for (int i = 0; i < kTempSlots; ++i) {
    int expected = kFree;
    if (g_temp_slots[i].state.compare_exchange_strong(expected, kClaimed)) {
      std::memcpy(g_temp_slots[i].path, path.c_str(), path.size() + 1);
      g_temp_slots[i].directory = directory;
      g_temp_slots[i].state.store(kReady, std::memory_order_release);
      return i;
    }
  }
  return -1;  // more paths than slots: this one is not removed on a signal
}

void unregister_temp_file(int& slot) {
  if (slot >= 0) g_temp_slots[slot].state.store(kFree, std::memory_order_release);
  slot = -1;
}

extern "C" void remove_temp_files_and_stop(int signal_number) {
  for (const bool directories : {false, true}) {
    for (TempSlot& slot : g_temp_slots) {
      if (slot.state.load(std::memory_order_acquire) != kReady || slot.directory != directories) {
        continue;
      }
      if (directories) {
        ::rmdir(slot.path);  // fails, harmlessly, unless empty
      } else {
        ::unlink(slot.path);
      }
    }
  }
  // Default action, then die by the signal: the parent sees it (status 128 + N in a shell).
  std::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

}  // namespace

void remove_temp_files_on_signal() {
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(signal_number, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = remove_temp_files_and_stop;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal_number, &action, nullptr);
  }
}

RemovedOnStop::RemovedOnStop(const std::string& path, Kind kind)
    : slot_(register_temp_file(path, kind == Kind::kEmptyDirectory)) {}

RemovedOnStop::~RemovedOnStop() {
  unregister_temp_file(slot_);
}

std::string side_file_path(const std::string& target, const std::string& suffix) {
  if (target == "-") return "";
  struct stat info {};
  if (::stat(target.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) return "";
  return target + suffix;
}

namespace {

constexpr char kTempInfix[] = ".tmp-";
constexpr size_t kTempRandomChars = 6;  // mkstemp's XXXXXX

}  // namespace

std::string temporary_file_target(const std::string& name) {
  const size_t infix = sizeof kTempInfix - 1;
  if (name.size() <= infix + kTempRandomChars) return "";
  const size_t at = name.size() - kTempRandomChars - infix;
  if (name.compare(at, infix, kTempInfix) != 0) return "";
  for (size_t i = at + infix; i < name.size(); ++i) {
    if (!std::isalnum(static_cast<unsigned char>(name[i]))) return "";
  }
  return name.substr(0, at);
}

namespace {

// The file a write to path replaces: path itself, or the end of its chain of symbolic links
// (relative links resolved against their own directory; at most 40 links, as the kernel allows).
std::string resolved_target(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path current(path);
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(current, ec))) return current.string();
    const fs::path next = fs::read_symlink(current, ec);
    if (ec) return current.string();
    current = next.is_absolute() ? next : current.parent_path() / next;
  }
  throw WriteError("cannot write '" + path + "': too many levels of symbolic links");
}

// mkstemp, with the file registered for removal on a signal before it exists: a stop between
// mkstemp and the registration left the file behind (cli.fault_injection's SIGTERM, sent as
// soon as the file appears, hit that window). The name's last kTempRandomChars characters are
// replaced as mkstemp's Xs are; -1 with errno set on failure, the registration undone.
int create_registered_temp(std::string& path, int& slot) {
  static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 random(std::random_device{}());
  const size_t first = path.size() - kTempRandomChars;
  for (int attempt = 0; attempt < 100; ++attempt) {
    for (size_t i = first; i < path.size(); ++i) path[i] = kChars[random() % (sizeof kChars - 1)];
    slot = register_temp_file(path);
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    const int err = errno;
    unregister_temp_file(slot);
    errno = err;
    if (err != EEXIST) return -1;
  }
  return -1;  // errno EEXIST
}

}  // namespace

LineWriter::LineWriter(const std::string& path) : path_(path) {
  if (path == "-") {
    file_ = stdout;
    direct_ = is_stdout_ = true;
    return;
  }
  struct stat target;
  const bool exists = ::stat(path.c_str(), &target) == 0;
  if (exists && !S_ISREG(target.st_mode)) {
    file_ = std::fopen(path.c_str(), "wb");
    if (!file_) throw WriteError("cannot write '" + path + "': " + errno_message(errno));
    direct_ = true;
    return;
  }
  // A symbolic link is followed: its target is replaced, the link stays a link (issue 29).
  target_path_ = resolved_target(path);
  temp_path_ = target_path_ + kTempInfix + std::string(kTempRandomChars, 'X');
  int fd = create_registered_temp(temp_path_, temp_slot_);
  if (fd < 0) {
    throw WriteError("cannot write '" + path + "': " + errno_message(errno));
  }
  if (exists) {
    // The replaced file keeps its permissions (and owner, where this process may set it).
    ::fchmod(fd, target.st_mode & 07777);
    if (::fchown(fd, target.st_uid, target.st_gid) != 0) {
      // Not ours to give away: the new file belongs to this user, as a copy would.
    }
  } else {
    // mkstemp creates 0600; give the file the permissions a plain fopen would.
    mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
  }
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    int err = errno;
    ::close(fd);
    ::unlink(temp_path_.c_str());
    unregister_temp_file(temp_slot_);
    throw WriteError("cannot write '" + path + "': " + errno_message(err));
  }
  static constexpr size_t kBufferSize = 1 << 16;
  std::setvbuf(file_, nullptr, _IOFBF, kBufferSize);
}

LineWriter::~LineWriter() {
  if (direct_) {
    if (!committed_) std::fflush(file_);
    if (!is_stdout_) std::fclose(file_);
    return;
  }
  if (file_) std::fclose(file_);
  if (!committed_) ::unlink(temp_path_.c_str());
  unregister_temp_file(temp_slot_);
}

void LineWriter::fail(int err) {
  if (err == EPIPE) throw BrokenPipe();
  throw WriteError("cannot write '" + (is_stdout_ ? std::string("<stdout>") : path_) +
                   "': " + errno_message(err));
}

void LineWriter::write(std::string_view text) {
  if (text.empty()) return;
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) fail(errno);
}

void LineWriter::write_line(std::string_view text) {
  write(text);
  if (std::fputc('\n', file_) == EOF) fail(errno);
  ++lines_;
}

void LineWriter::flush() {
  if (std::fflush(file_) != 0) fail(errno);
}

void LineWriter::rename_temp_file(const std::string& final_path) {
  flush();
  if (::fsync(fileno(file_)) != 0) fail(errno);
  int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) fail(errno);
  if (std::rename(temp_path_.c_str(), final_path.c_str()) != 0) fail(errno);
  unregister_temp_file(temp_slot_);
  fsync_directory(final_path);
  committed_ = true;
}

void LineWriter::commit() {
  if (committed_) return;
  if (direct_) {
    flush();
    committed_ = true;
    return;
  }
  rename_temp_file(target_path_);
  ::unlink(partial_path().c_str());
}

std::string LineWriter::keep_partial(long long lines) {
  if (committed_) return "";
  if (direct_) {
    commit();
    return "";
  }
  const std::string partial = partial_path();
  if (lines == 0) {
    ::unlink(partial.c_str());
    return "";  // the destructor removes the temporary file
  }
  rename_temp_file(partial);
  if (lines == 1) return "; the line before it is in '" + partial + "'";
  return "; the " + std::to_string(lines) + " lines before it are in '" + partial + "'";
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  LineWriter writer(path);
  writer.write(bytes);
  writer.commit();
}

void check_writable(const std::string& path) {
  if (path == "-") return;
  std::string dir = directory_of(path);
  if (::access(dir.c_str(), W_OK) != 0) {
    throw WriteError("cannot write '" + path + "': directory '" + dir +
                     "': " + errno_message(errno));
  }
}

}  // namespace heed::io
