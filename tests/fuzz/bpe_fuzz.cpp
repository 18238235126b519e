// BPE codes reader and the application of codes to words. The input is a codes file; the
// words are the input's own space-separated fields (and each merge spelled out), so the merges
// fire. Promises (bpe.h): malformed codes are refused with FormatError; parse(to_string(c))
// gives c back; the pieces of a word always spell the word, with and without BPE-dropout; the
// word cache never changes a segmentation.
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "heed/text/bpe.h"

using namespace heed;
using namespace heed::text;
using heed::fuzz::fuzz_fail;

namespace {

std::vector<std::string> check_pieces(const Bpe& bpe, std::string_view word, Rng* rng) {
  std::vector<std::string> pieces;
  bpe.encode(word, pieces, rng);
  std::string spelled;
  for (const auto& piece : pieces) {
    if (piece.empty()) fuzz_fail("empty BPE piece for '" + std::string(word) + "'");
    spelled += piece;
  }
  if (spelled != word) {
    fuzz_fail("BPE pieces spell '" + spelled + "', not '" + std::string(word) + "'");
  }
  return pieces;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  BpeCodes codes;
  if (!fuzz::refuses_cleanly([&] { codes = BpeCodes::parse(text, "codes"); })) return 0;

  const BpeCodes back = BpeCodes::parse(codes.to_string(), "to_string");
  if (back.merges() != codes.merges() || back.version() != codes.version()) {
    fuzz_fail("parse(to_string(codes)) differs from codes");
  }

  std::vector<std::string> words;
  for (const auto& merge : codes.merges()) {
    std::string word = merge.left + merge.right;
    if (word.size() >= kEndOfWord.size() &&
        word.compare(word.size() - kEndOfWord.size(), kEndOfWord.size(), kEndOfWord) == 0) {
      word.resize(word.size() - kEndOfWord.size());
    }
    if (!word.empty()) words.push_back(word);
    if (words.size() >= 32) break;
  }
  size_t start = 0;
  while (start < text.size() && words.size() < 64) {
    size_t end = text.find_first_of(" \n\t", start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) words.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }

  BpeOptions cached;
  cached.cache_size = 8;
  const Bpe bpe(codes, cached);
  BpeOptions uncached;
  uncached.cache_size = 0;
  const Bpe plain(codes, uncached);
  BpeOptions dropout;
  dropout.dropout = 0.3f;
  dropout.cache_size = 0;
  const Bpe dropping(codes, dropout);
  Rng rng = make_rng(size);
  for (const auto& word : words) {
    const auto pieces = check_pieces(plain, word, nullptr);
    if (check_pieces(bpe, word, nullptr) != pieces || check_pieces(bpe, word, nullptr) != pieces) {
      fuzz_fail("the word cache changes the segmentation of '" + word + "'");
    }
    std::vector<std::string_view> views;
    plain.encode(word, views);
    if (views.size() != pieces.size()) fuzz_fail("the two encode() overloads disagree");
    check_pieces(dropping, word, &rng);
  }
  return 0;
}
