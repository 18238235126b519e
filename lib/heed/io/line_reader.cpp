#include "heed/io/line_reader.h"

#include <cerrno>
#include <cstdlib>

#include "heed/common/error.h"

namespace heed::io {

LineReader::LineReader(const std::string& path) : path_(path) {
  if (path == "-") {
    file_ = stdin;
  } else {
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) {
      throw FileError("cannot open '" + path + "': " + errno_message(errno));
    }
    owns_file_ = true;
  }
}

LineReader::~LineReader() {
  std::free(buffer_);
  if (owns_file_) std::fclose(file_);
}

bool LineReader::next(std::string& line) {
  errno = 0;
  ssize_t n = getline(&buffer_, &capacity_, file_);
  if (n < 0) {
    if (std::ferror(file_)) {
      throw FileError("cannot read '" + display_name() + "': " + errno_message(errno));
    }
    return false;
  }
  size_t len = static_cast<size_t>(n);
  if (len > 0 && buffer_[len - 1] == '\n') --len;
  if (len > 0 && buffer_[len - 1] == '\r') --len;
  line.assign(buffer_, len);
  ++line_number_;
  return true;
}

std::string LineReader::display_name() const { return path_ == "-" ? "<stdin>" : path_; }

long long count_lines(const std::string& path) {
  LineReader reader(path);
  std::string line;
  while (reader.next(line)) {
  }
  return reader.line_number();
}

}  // namespace heed::io
