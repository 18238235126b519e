// Byte-pair encoding: codes in the subword-nmt format and their application to words.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heed/common/rng.h"

namespace heed::text {

// One merge: the symbols left and right become left+right. A symbol ending in "</w>" is the
// end of a word (subword-nmt 0.2).
struct BpeMerge {
  std::string left;
  std::string right;
  bool operator==(const BpeMerge& o) const { return left == o.left && right == o.right; }
};

// subword-nmt's two conventions for the end of a word: 0.2 (default, written by heed) marks the
// last character ("r</w>"); 0.1 (files without a "#version" header) uses a separate "</w>".
enum class BpeVersion { k01, k02 };

class BpeCodes {
 public:
  BpeCodes() = default;
  explicit BpeCodes(std::vector<BpeMerge> merges, BpeVersion version = BpeVersion::k02)
      : merges_(std::move(merges)), version_(version) {}

  // Reads subword-nmt codes (with or without the "#version: 0.2" header). Throws FileError
  // if the file cannot be opened and FormatError naming file:line for a malformed line.
  static BpeCodes load(const std::string& path);
  // Same from text already in memory; name is used in messages.
  static BpeCodes parse(std::string_view text, const std::string& name);
  // "#version: 0.2" (or 0.1) then one "left right" line per merge.
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
  float dropout = 0.0f;  // BPE-dropout (Provilkov et al. 2020): skip each merge with this probability
};

class Bpe {
 public:
  explicit Bpe(BpeCodes codes, BpeOptions options = {});
  ~Bpe();
  Bpe(const Bpe&) = delete;
  Bpe& operator=(const Bpe&) = delete;

  // Splits word (no spaces, no joiners) into pieces whose concatenation is word, appending
  // them to pieces. Thread-safe. Uses a cache unless dropout applies (dropout needs rng).
  void encode(std::string_view word, std::vector<std::string>& pieces, Rng* rng = nullptr) const;

  const BpeCodes& codes() const;
  const BpeOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace heed::text
