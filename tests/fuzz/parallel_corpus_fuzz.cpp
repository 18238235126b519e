// Parallel-corpus reader. The first byte picks the layout: even = one combined file of
// "src ||| tgt" / "src<TAB>tgt" lines, odd = two files (the second byte says where the input
// is cut between them). The pairs must be exactly the lines of the files (split at "\n", one
// "\r" at the end of a line dropped, also on a last line without "\n", which counts; a UTF-8
// BOM at the start of a file's first line dropped; NUL bytes kept), split at the first " ||| "
// or else the first TAB; a line without separator, or files of different line counts, must be
// refused with DataError (and check_line_counts must agree).
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "heed/io/parallel_corpus.h"

using namespace heed;
using heed::fuzz::fuzz_fail;

namespace {

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lines.empty() && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a BOM
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

std::vector<std::pair<std::string, std::string>> read_all(io::ParallelReader& reader) {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::string source, target;
  while (reader.next(source, target)) {
    pairs.emplace_back(source, target);
    if (reader.line_number() != static_cast<long long>(pairs.size())) {
      fuzz_fail("line_number() does not count the pairs read");
    }
  }
  return pairs;
}

void check_combined(std::string_view text) {
  static const fuzz::ScratchFile file("parallel_combined");
  file.write(text);
  std::vector<std::pair<std::string, std::string>> expected;
  bool separated = true;
  for (const std::string& line : lines_of(text)) {
    size_t bar = line.find(" ||| ");
    size_t width = 5;
    if (bar == std::string::npos) {
      bar = line.find('\t');
      width = 1;
    }
    if (bar == std::string::npos) {
      separated = false;
      break;
    }
    expected.emplace_back(line.substr(0, bar), line.substr(bar + width));
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  const bool read = fuzz::refuses_cleanly([&] {
    io::ParallelReader reader(file.path());
    pairs = read_all(reader);
  });
  if (read != separated) fuzz_fail("a line without separator was accepted, or a good file refused");
  if (read && pairs != expected) fuzz_fail("the pairs are not the lines of the combined file");
}

void check_two_files(std::string_view source_text, std::string_view target_text) {
  static const fuzz::ScratchFile source_file("parallel_source");
  static const fuzz::ScratchFile target_file("parallel_target");
  source_file.write(source_text);
  target_file.write(target_text);
  const std::vector<std::string> sources = lines_of(source_text), targets = lines_of(target_text);
  const bool parallel = sources.size() == targets.size();
  std::vector<std::pair<std::string, std::string>> pairs;
  const bool read = fuzz::refuses_cleanly([&] {
    io::ParallelReader reader(source_file.path(), target_file.path());
    pairs = read_all(reader);
  });
  if (read != parallel) fuzz_fail("files of different line counts were accepted, or equal refused");
  for (size_t i = 0; read && i < pairs.size(); ++i) {
    if (pairs[i].first != sources[i] || pairs[i].second != targets[i]) {
      fuzz_fail("pair " + std::to_string(i + 1) + " is not the lines of the two files");
    }
  }
  const bool counted =
      fuzz::refuses_cleanly([&] { io::check_line_counts(source_file.path(), target_file.path()); });
  if (counted != parallel) fuzz_fail("check_line_counts disagrees with the line counts");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const std::string_view rest = fuzz::as_text(data + 2, size - 2);
  if (data[0] % 2 == 0) {
    check_combined(fuzz::as_text(data + 1, size - 1));
  } else {
    const size_t cut = rest.size() * data[1] / 255;
    check_two_files(rest.substr(0, cut), rest.substr(cut));
  }
  return 0;
}
