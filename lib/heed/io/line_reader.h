// Reads text lines from a file or stdin ("-"), counting them for error messages.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace heed::io {

// The longest line read from input that is not a regular file (a pipe, a device, stdin from
// one): such input can be endless without a line end (/dev/zero), and a longer line is a
// DataError naming it instead of a read until memory runs out. Regular files are bounded by their
// size (and an allocation that fails is OutOfMemory, naming the line).
inline constexpr size_t kMaxStreamLineBytes = size_t(64) << 20;

class LineReader {
 public:
  // Opens path ("-" = stdin). Throws FileError if it cannot be opened.
  explicit LineReader(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Next line without its "\n" (and without one "\r" before it), and the first line without
  // a leading byte order mark (without_bom). False at end of input. A final line without "\n"
  // still counts. Throws FileError on a read error, OutOfMemory (naming the file and line) when
  // the line does not fit in memory.
  bool next(std::string& line);

  // 1-based number of the line last returned by next().
  long long line_number() const { return line_number_; }
  const std::string& path() const { return path_; }
  // The name to show in messages: the path, or "<stdin>".
  std::string display_name() const;

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  bool owns_file_ = false;
  char* buffer_ = nullptr;
  size_t capacity_ = 0;
  long long line_number_ = 0;
  bool regular_ = false;     // a regular file: lines are bounded by its size
  std::string stream_line_;  // next_from_stream's buffer
  bool next_from_stream(std::string& line);
  void finish_line(std::string_view text, std::string& line);
};

// text without a leading UTF-8 byte order mark (EF BB BF), which some editors write at the start
// of a file. Every reader of text input drops it from its first line: LineReader, BatchReader,
// the BPE codes and vocabulary parsers, the token counters.
std::string_view without_bom(std::string_view text);

// The lines of text in memory, as LineReader reads a file: without their "\n" and one "\r"
// before it, a final line without "\n" counted, a leading byte order mark dropped.
class TextLines {
 public:
  explicit TextLines(std::string_view text) : text_(without_bom(text)) {}
  // The next line; false at the end of the text.
  bool next(std::string_view& line);
  // 1-based number of the line last returned by next().
  long long line_number() const { return line_number_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  long long line_number_ = 0;
};

// Number of lines in a file (as next() would count them).
long long count_lines(const std::string& path);

// The whole content of a file ("-" = stdin), read once into a buffer of the file's size where
// that is known. Throws FileError naming the file.
std::string read_whole_file(const std::string& path);
// The rest of an open file, NAME in errors; the caller keeps and closes FILE.
std::string read_whole_file(std::FILE* file, const std::string& name);

}  // namespace heed::io
