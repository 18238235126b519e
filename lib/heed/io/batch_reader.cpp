#include "heed/io/batch_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <new>

#include "heed/common/error.h"
#include "heed/io/line_reader.h"

namespace heed::io {

BatchReader::BatchReader(const std::string& path) : path_(path) {
  if (path == "-") {
    fd_ = STDIN_FILENO;
  } else {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw FileError("cannot open '" + path + "': " + errno_message(errno));
    owns_fd_ = true;
  }
  struct stat info {};
  regular_ = ::fstat(fd_, &info) == 0 && S_ISREG(info.st_mode);
  if (regular_) size_ = static_cast<long long>(info.st_size);
}

BatchReader::~BatchReader() {
  if (owns_fd_) ::close(fd_);
}

std::string BatchReader::display_name() const {
  return path_ == "-" ? "<stdin>" : path_;
}

bool BatchReader::fill(bool block) {
  if (eof_) return false;
  if (!block) {
    pollfd p{fd_, POLLIN, 0};
    int ready = ::poll(&p, 1, 0);
    if (ready <= 0) return false;  // nothing now (or poll unsupported): do not wait
  }
  // Drop consumed bytes before growing the buffer.
  if (start_ > 0 && start_ * 2 >= buffer_.size()) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
  constexpr size_t kChunk = 1 << 16;
  const size_t old = buffer_.size();
  try {
    buffer_.resize(old + kChunk);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(at_line(
        display_name(), lines_read_ + 1,
        "out of memory reading this line (" + std::to_string(old - start_) + " bytes so far)"));
  }
  ssize_t n;
  do {
    n = ::read(fd_, buffer_.data() + old, kChunk);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    buffer_.resize(old);
    throw FileError("cannot read '" + display_name() + "': " + errno_message(errno));
  }
  buffer_.resize(old + static_cast<size_t>(n));
  if (n == 0) eof_ = true;
  return n > 0;
}

bool BatchReader::take_line(std::string& line) {
  // Bytes already searched are not searched again: a long line arrives in many reads.
  size_t newline = buffer_.find('\n', start_ + scanned_);
  size_t end;
  if (newline != std::string::npos) {
    end = newline;
  } else if (eof_ && start_ < buffer_.size()) {
    end = buffer_.size();  // a last line without "\n"
  } else {
    // A stream may never end its line (/dev/zero): beyond the cap it is bad input, not memory.
    if (!regular_ && buffer_.size() - start_ > kMaxStreamLineBytes) {
      throw DataError(at_line(display_name(), lines_read_ + 1,
                              "a line longer than " + std::to_string(kMaxStreamLineBytes >> 20) +
                                  " MiB in input that is not a regular file (no line ends?)"));
    }
    scanned_ = buffer_.size() - start_;
    return false;
  }
  size_t stop = end;
  if (stop > start_ && buffer_[stop - 1] == '\r') --stop;
  std::string_view text(buffer_.data() + start_, stop - start_);
  if (lines_read_ == 0) text = without_bom(text);
  line.assign(text);
  const size_t next = newline != std::string::npos ? newline + 1 : buffer_.size();
  bytes_returned_ += static_cast<long long>(next - start_);
  start_ = next;
  scanned_ = 0;
  ++lines_read_;
  return true;
}

bool BatchReader::next_batch(std::vector<std::string>& lines, size_t max_lines) {
  lines.clear();
  if (max_lines == 0) max_lines = 1;
  if (pending_error_) {
    const std::exception_ptr error = pending_error_;
    pending_error_ = nullptr;
    std::rethrow_exception(error);
  }
  std::string line;
  try {
    while (lines.size() < max_lines) {
      if (take_line(line)) {
        lines.push_back(std::move(line));
        continue;
      }
      // No complete line buffered: wait for one only if the batch is still empty.
      if (!fill(lines.empty())) {
        if (eof_ && take_line(line)) {
          lines.push_back(std::move(line));
          continue;
        }
        break;
      }
    }
  } catch (const std::bad_alloc&) {
    pending_error_ = std::make_exception_ptr(
        OutOfMemory(at_line(display_name(), lines_read_ + 1, "out of memory reading this line")));
  } catch (...) {
    pending_error_ = std::current_exception();
  }
  // The lines before a line that could not be read go first; its error comes with the next call.
  if (pending_error_ && lines.empty()) return next_batch(lines, max_lines);
  return !lines.empty();
}

}  // namespace heed::io
