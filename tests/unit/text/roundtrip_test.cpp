// The round-trip invariant detokenize(tokenize(x)) == normalize(x), byte for byte, on every
// line of the shared corpora (Multi30k raw, Tatoeba en/fr, the gold-alignment sentences), in
// both modes, with and without case marks. Skipped (visibly) when the data is absent.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "heed/common/timer.h"
#include "heed/text/tokenizer.h"
#include "heed/text/unicode.h"

using namespace heed;
using namespace heed::text;
namespace fs = std::filesystem;

namespace {

struct Corpus {
  std::vector<std::string> lines;
  std::vector<std::string> summary;  // "name=count" per source
  long long repaired = 0;            // lines that were not valid UTF-8
};

void add_line(Corpus& corpus, std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (find_invalid_utf8(line)) {
    line = replace_invalid_utf8(line);  // the tokenizer's precondition; the tool does the same
    ++corpus.repaired;
  }
  corpus.lines.push_back(std::move(line));
}

size_t add_file(Corpus& corpus, const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  size_t count = 0;
  for (std::string line; std::getline(in, line); ++count) add_line(corpus, std::move(line));
  return count;
}

// Tatoeba: "en<TAB>fr" lines in a gzip file, decompressed by gzip(1) (no zlib dependency).
void add_tatoeba(Corpus& corpus, const fs::path& path) {
  const std::string command = "gzip -dc '" + path.string() + "'";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  REQUIRE(pipe);
  std::string data;
  char buffer[1 << 16];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe.get())) > 0;) data.append(buffer, n);
  size_t count = 0;
  std::istringstream in(data);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, '\t');) {
      add_line(corpus, std::move(field));
      ++count;
    }
  }
  corpus.summary.push_back("tatoeba-en+fr=" + std::to_string(count));
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : " ") + part;
  return out;
}

}  // namespace

TEST_CASE("roundtrip: detokenize(tokenize(x)) == normalize(x) on the shared corpora",
          "[text][slow][shared-data]") {
  const fs::path root = HEED_SHARED_DATA_DIR;
  if (!fs::is_directory(root)) {
    WARN("SKIPPED: shared data directory " << root.string() << " not found");
    return;
  }
  Timer timer;
  Corpus corpus;
  if (fs::is_directory(root / "multi30k" / "raw")) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(root / "multi30k" / "raw")) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    size_t count = 0;
    for (const auto& file : files) count += add_file(corpus, file);
    corpus.summary.push_back("multi30k-raw(" + std::to_string(files.size()) +
                             " files)=" + std::to_string(count));
  }
  if (fs::exists(root / "tatoeba-eng-fra" / "fra.txt.gz")) {
    add_tatoeba(corpus, root / "tatoeba-eng-fra" / "fra.txt.gz");
  }
  for (const char* gold : {"hansards-naacl2003-en-fr/test.e", "hansards-naacl2003-en-fr/test.f",
                           "hansards-naacl2003-en-fr/trial.e", "hansards-naacl2003-en-fr/trial.f",
                           "rwth-deen-gold/de.utf8", "rwth-deen-gold/en.utf8",
                           "wpt03-roen-gold/roen.ro", "wpt03-roen-gold/roen.en"}) {
    if (fs::exists(root / gold)) {
      corpus.summary.push_back(std::string(gold) + "=" +
                               std::to_string(add_file(corpus, root / gold)));
    }
  }
  if (corpus.lines.empty()) {
    WARN("SKIPPED: no corpus files found under " << root.string());
    return;
  }

  struct Config {
    const char* name;
    TokenizeMode mode;
    bool case_feature;
  };
  const Config configs[] = {{"conservative", TokenizeMode::kConservative, false},
                            {"aggressive", TokenizeMode::kAggressive, false},
                            {"conservative+case", TokenizeMode::kConservative, true},
                            {"aggressive+case", TokenizeMode::kAggressive, true}};
  long long checked = 0;
  for (const Config& config : configs) {
    TokenizerOptions options;
    options.mode = config.mode;
    options.case_feature = config.case_feature;
    const Tokenizer tokenizer(options);
    long long failures = 0, not_idempotent = 0;
    std::string first_failure;
    std::string tokens;
    for (const std::string& line : corpus.lines) {
      tokens.clear();
      tokenizer.append_tokenized(line, tokens);
      const std::string normalized = tokenizer.normalize(line);
      if (tokenizer.detokenize_line(tokens) != normalized) {
        if (failures++ == 0) first_failure = line + "\n  tokens: " + tokens;
      }
      if (!config.case_feature && config.mode == TokenizeMode::kConservative &&
          tokenizer.normalize(normalized) != normalized) {
        ++not_idempotent;
      }
      ++checked;
    }
    INFO(config.name << ": first failing line: " << first_failure);
    CHECK(failures == 0);
    CHECK(not_idempotent == 0);
  }
  WARN("roundtrip: " << corpus.lines.size() << " lines x " << std::size(configs)
                     << " configurations = " << checked << " checks, 0 failures allowed ("
                     << join(corpus.summary) << "; repaired invalid UTF-8: " << corpus.repaired
                     << "; " << static_cast<int>(timer.seconds()) << " s)");
}
