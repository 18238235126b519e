// Reversible tokenization: Unicode normalization, ICU word boundaries, joiner marks, optional
// case marks and BPE. detokenize(tokenize(x)) == normalize(x), byte for byte. The token format
// (joiners, escapes, case marks, placeholders) is described in docs/formats.md.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heed/common/rng.h"
#include "heed/text/unicode.h"

namespace heed::text {

class Bpe;

enum class TokenizeMode {
  kConservative,  // keeps 2,000 / 3.14 / -5 / soft-landing / l'avion whole
  kAggressive,  // keeps only runs of one class: 2 ￭,￭ 000, soft ￭-￭ landing, l ￭'￭ avion
};

struct TokenizerOptions {
  TokenizeMode mode = TokenizeMode::kConservative;    // how far words and numbers are split
  Normalization normalization = Normalization::kNfc;  // Unicode form applied first
  bool lowercase = false;     // lowercase the text (not reversible: normalize() lowercases too)
  bool case_feature = false;  // lowercase tokens and mark their case (￨C, ￨U): reversible

  // Throws ConfigError for values out of range or options that exclude each other.
  void validate() const;
};

// "conservative" / "aggressive", "nfc" / "nfkc" / "none", and back. The parsers throw
// ConfigError naming the valid values.
std::string_view to_string(TokenizeMode mode);
std::string_view to_string(Normalization form);
TokenizeMode parse_tokenize_mode(std::string_view name);
Normalization parse_normalization(std::string_view name);

// Thread-safe: one const Tokenizer serves any number of threads.
//
// Precondition of every input: well-formed UTF-8 (callers check with find_invalid_utf8() and
// reject or replace_invalid_utf8() first; the tool does this per --on-invalid). Ill-formed
// input does not crash but is not guaranteed to round-trip.
class Tokenizer {
 public:
  // Validates options (ConfigError). With bpe, word tokens are split into subword units.
  explicit Tokenizer(TokenizerOptions options = {}, std::shared_ptr<const Bpe> bpe = nullptr);

  // Tokens of line; none for an empty or blank line. rng drives BPE-dropout (may be null).
  std::vector<std::string> tokenize(std::string_view line, Rng* rng = nullptr) const;
  // The tokens joined by single spaces.
  std::string tokenize_line(std::string_view line, Rng* rng = nullptr) const;
  // Same, appended to out (which may hold earlier text; a space is not added before it).
  void append_tokenized(std::string_view line, std::string& out, Rng* rng = nullptr) const;

  // Every token tokenize(line, rng) can give for some draw of BPE-dropout, appended to out (a
  // token may come more than once): each word's possible pieces (Bpe::possible_pieces) in the
  // form the piece takes at its place — a joiner after every piece that does not end its word,
  // the word's leading joiner on a piece that starts it, its case mark as the tokenizer puts it —
  // and every other token as it is. A superset (Bpe::possible_pieces is), and without BPE the
  // tokens of line.
  void append_possible_tokens(std::string_view line, std::vector<std::string>& out) const;

  // The inverse: joins tokens honouring joiners, escapes and case marks.
  std::string detokenize(const std::vector<std::string>& tokens) const;
  // Same for a line of tokens separated by spaces.
  std::string detokenize_line(std::string_view line) const;

  // What detokenize(tokenize(line)) returns: the normalization form (the reserved marks
  // ￭ ％ ｟ ｠ ￨ protected from NFKC), every White_Space character and U+200B mapped to a
  // space, runs of spaces collapsed, leading and trailing spaces removed, control characters
  // (Cc) and U+FEFF removed, lowercased if options().lowercase. Placeholder contents ｟…｠ are
  // kept as they are (only non-space controls are removed from them).
  std::string normalize(std::string_view line) const;

  const TokenizerOptions& options() const { return options_; }
  const std::shared_ptr<const Bpe>& bpe() const { return bpe_; }

 private:
  TokenizerOptions options_;
  std::shared_ptr<const Bpe> bpe_;
};

// The word each token belongs to, numbered from 0: a token continues the previous word when
// either carries the joiner on the side where they meet, so the words are what detokenize()
// leaves between spaces (BPE pieces and split punctuation join their word). Word alignments
// count these words.
std::vector<int> word_indices(const std::vector<std::string>& tokens);

}  // namespace heed::text
