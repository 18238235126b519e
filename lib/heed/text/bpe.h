// Byte-pair encoding: codes in the subword-nmt format and their application to words.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heed/common/rng.h"

namespace heed::text {

// The end-of-word mark of subword-nmt codes.
inline constexpr std::string_view kEndOfWord = "</w>";

// One merge: the symbols left and right become left+right. A symbol ending in "</w>" is the
// end of a word (subword-nmt 0.2).
struct BpeMerge {
  std::string left;
  std::string right;
  bool operator==(const BpeMerge& o) const { return left == o.left && right == o.right; }
};

// subword-nmt's two conventions for the end of a word. 0.2 (written by heed and by
// subword-nmt since 2017) puts "</w>" on the last character of a word: "w e r</w>". 0.1
// (files without a "#version" header) makes it a symbol of its own: "w e r </w>", so a
// word-final merge reads "r </w>" instead of being learnt together with its character.
enum class BpeVersion { k01, k02 };

class BpeCodes {
 public:
  BpeCodes() = default;
  explicit BpeCodes(std::vector<BpeMerge> merges, BpeVersion version = BpeVersion::k02)
      : merges_(std::move(merges)), version_(version) {}

  // Reads subword-nmt codes (with or without the "#version: 0.2" header). Throws FileError
  // if the file cannot be opened and FormatError naming file:line for a malformed line or
  // one that is not text (find_invalid_text). A leading byte order mark is ignored. A file
  // without a header is version 0.1, as subword-nmt reads it. A file without any merge is a
  // FormatError too (parse() accepts it: codes may be empty, a file given as codes may not).
  static BpeCodes load(const std::string& path);
  // Same from text already in memory; name is used in messages.
  static BpeCodes parse(std::string_view text, const std::string& name);
  // "#version: 0.2" (or "#version: 0.1") then one "left right" line per merge.
  std::string to_string() const;
  // Atomic write of to_string(). Throws WriteError.
  void save(const std::string& path) const;

  const std::vector<BpeMerge>& merges() const { return merges_; }
  BpeVersion version() const { return version_; }

 private:
  std::vector<BpeMerge> merges_;
  BpeVersion version_ = BpeVersion::k02;
};

struct BpeOptions {
  float dropout =
      0.0f;  // BPE-dropout (Provilkov et al. 2020): skip each merge with this probability
  size_t cache_size = size_t{1} << 18;  // words whose segmentation is kept (0 = no cache)
};

// Applies codes exactly as subword-nmt's apply_bpe does (without its vocabulary filter and
// glossaries): the word is split into characters (code points), "</w>" is added (see
// BpeVersion), the pair with the lowest merge rank is merged wherever it occurs (left to
// right, without overlap) until no pair of the codes is left, and "</w>" is removed again.
// A merge listed twice keeps its first rank. Characters the codes never mention stay single
// pieces; the pieces always spell the word. Cost: O(n²) in the characters of a word, once
// per distinct word thanks to the cache.
class Bpe {
 public:
  // Throws ConfigError unless 0 <= options.dropout <= 1.
  explicit Bpe(BpeCodes codes, BpeOptions options = {});
  ~Bpe();
  Bpe(const Bpe&) = delete;
  Bpe& operator=(const Bpe&) = delete;

  // Splits word (no spaces, no joiners) into pieces whose concatenation is word, appending
  // them to pieces. Thread-safe. With rng and options().dropout > 0, each candidate merge is
  // dropped with that probability at each step (BPE-dropout; no cache, deterministic for a
  // given rng state); without rng the segmentation is the plain, cached one.
  void encode(std::string_view word, std::vector<std::string>& pieces, Rng* rng = nullptr) const;
  // Same, as views into word (no allocation once pieces has grown).
  void encode(std::string_view word, std::vector<std::string_view>& pieces,
              Rng* rng = nullptr) const;
  // Every piece some BPE-dropout draw can cut from word, appended to pieces as views into word
  // (one per place: the same text at two places comes twice): each character, and each
  // substring that is the result of a merge of the codes (a word-final one only at the end of
  // word). A superset — a merge result counts even where the merges before it cannot build it —
  // so that a vocabulary holding these maps no segmentation to <unk>. Cost: O(n·L) lookups for
  // a word of n characters and merge results of up to L bytes.
  void possible_pieces(std::string_view word, std::vector<std::string_view>& pieces) const;

  const BpeCodes& codes() const;
  const BpeOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace heed::text
