#include "heed/io/line_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>

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

// The temporary files of live writers, in fixed slots so that a signal handler can read them
// without locks or allocation. A writer that finds no free slot is simply not tracked.
constexpr int kTemporarySlots = 16;
std::atomic<const char*> g_temporary_files[kTemporarySlots];

void track_temporary(const char* path) {
  for (auto& slot : g_temporary_files) {
    const char* expected = nullptr;
    if (slot.compare_exchange_strong(expected, path)) return;
  }
}

void untrack_temporary(const char* path) {
  for (auto& slot : g_temporary_files) {
    const char* expected = path;
    if (slot.compare_exchange_strong(expected, nullptr)) return;
  }
}

}  // namespace

void remove_temporary_files() noexcept {
  for (auto& slot : g_temporary_files) {
    if (const char* path = slot.load()) ::unlink(path);
  }
}

LineWriter::LineWriter(const std::string& path) : path_(path) {
  if (path == "-") {
    file_ = stdout;
    is_stdout_ = true;
    return;
  }
  temp_path_ = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(temp_path_.data());
  if (fd < 0) {
    throw WriteError("cannot write '" + path + "': " + errno_message(errno));
  }
  // mkstemp creates 0600; give the file the permissions a plain fopen would.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    int err = errno;
    ::close(fd);
    ::unlink(temp_path_.c_str());
    throw WriteError("cannot write '" + path + "': " + errno_message(err));
  }
  track_temporary(temp_path_.c_str());
  static constexpr size_t kBufferSize = 1 << 16;
  std::setvbuf(file_, nullptr, _IOFBF, kBufferSize);
}

LineWriter::~LineWriter() {
  if (is_stdout_) {
    if (!committed_) std::fflush(stdout);
    return;
  }
  if (file_) std::fclose(file_);
  if (!committed_) ::unlink(temp_path_.c_str());
  untrack_temporary(temp_path_.c_str());
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
}

void LineWriter::flush() {
  if (std::fflush(file_) != 0) fail(errno);
}

void LineWriter::commit() {
  if (committed_) return;
  flush();
  if (!is_stdout_) {
    if (::fsync(fileno(file_)) != 0) fail(errno);
    int rc = std::fclose(file_);
    file_ = nullptr;
    if (rc != 0) fail(errno);
    if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) fail(errno);
    untrack_temporary(temp_path_.c_str());
    fsync_directory(path_);
  }
  committed_ = true;
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
