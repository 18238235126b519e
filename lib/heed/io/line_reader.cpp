#include "heed/io/line_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>

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
  struct stat info {};
  regular_ = ::fstat(fileno(file_), &info) == 0 && S_ISREG(info.st_mode);
}

LineReader::~LineReader() {
  std::free(buffer_);
  if (owns_file_) std::fclose(file_);
}

// A line of a stream, read up to kMaxStreamLineBytes.
bool LineReader::next_from_stream(std::string& line) {
  std::string& text = stream_line_;
  text.clear();
  int c = EOF;
  bool any = false;
  while ((c = getc_unlocked(file_)) != EOF) {
    any = true;
    if (c == '\n') break;
    if (text.size() >= kMaxStreamLineBytes) {
      throw DataError(at_line(display_name(), line_number_ + 1,
                              "a line longer than " + std::to_string(kMaxStreamLineBytes >> 20) +
                                  " MiB in input that is not a regular file (no line ends?)"));
    }
    text.push_back(static_cast<char>(c));
  }
  if (c == EOF && std::ferror(file_)) {
    throw FileError("cannot read '" + display_name() + "': " + errno_message(errno));
  }
  if (!any) return false;
  finish_line(text, line);
  return true;
}

void LineReader::finish_line(std::string_view text, std::string& line) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  if (line_number_ == 0) text = without_bom(text);
  try {
    line.assign(text);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(
        at_line(display_name(), line_number_ + 1,
                "out of memory reading this line (" + std::to_string(text.size()) + " bytes)"));
  }
  ++line_number_;
}

bool LineReader::next(std::string& line) {
  if (!regular_) return next_from_stream(line);
  errno = 0;
  ssize_t n = getline(&buffer_, &capacity_, file_);
  if (n < 0) {
    if (std::ferror(file_)) {
      throw FileError("cannot read '" + display_name() + "': " + errno_message(errno));
    }
    // getline's buffer could not grow (ENOMEM): a line too long for this memory, not the end.
    if (!std::feof(file_)) {
      throw OutOfMemory(at_line(display_name(), line_number_ + 1,
                                "out of memory reading this line (" + errno_message(errno) + ")"));
    }
    return false;
  }
  size_t len = static_cast<size_t>(n);
  if (len > 0 && buffer_[len - 1] == '\n') --len;
  finish_line(std::string_view(buffer_, len), line);
  return true;
}

std::string LineReader::display_name() const {
  return path_ == "-" ? "<stdin>" : path_;
}

bool TextLines::next(std::string_view& line) {
  if (pos_ >= text_.size()) return false;
  size_t end = text_.find('\n', pos_);
  if (end == std::string_view::npos) end = text_.size();
  line = text_.substr(pos_, end - pos_);
  pos_ = end + 1;
  ++line_number_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return true;
}

std::string_view without_bom(std::string_view text) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  return text;
}

long long count_lines(const std::string& path) {
  LineReader reader(path);
  std::string line;
  while (reader.next(line)) {
  }
  return reader.line_number();
}

std::string read_whole_file(const std::string& path) {
  const bool is_stdin = path == "-";
  std::FILE* file = is_stdin ? stdin : std::fopen(path.c_str(), "rb");
  if (file == nullptr) throw FileError("cannot open '" + path + "': " + errno_message(errno));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(is_stdin ? nullptr : file, std::fclose);
  return read_whole_file(file, is_stdin ? "<stdin>" : path);
}

std::string read_whole_file(std::FILE* file, const std::string& name) {
  std::string text;
  struct stat info {};
  if (fstat(fileno(file), &info) == 0 && S_ISREG(info.st_mode)) text.reserve(size_t(info.st_size));
  char block[1 << 16];
  size_t n = 0;
  try {
    while ((n = std::fread(block, 1, sizeof block, file)) > 0) text.append(block, n);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory("out of memory reading '" + name + "' (" + std::to_string(text.size()) +
                      " bytes read)");
  }
  if (std::ferror(file) != 0)
    throw FileError("cannot read '" + name + "': " + errno_message(errno));
  return text;
}

}  // namespace heed::io
