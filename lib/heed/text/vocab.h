// Token counts (heed-tokenize vocab, learn-bpe) and the token ↔ id vocabulary of a model.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "heed/text/input_check.h"

namespace heed::text {

using WordCounts = std::unordered_map<std::string, long long>;
using CountList = std::vector<std::pair<std::string, long long>>;

// Counting tokenized text: one sentence per line, tokens separated by spaces (tabs and CR
// count as separators too). The files ("-" = stdin) are read in large blocks that `threads`
// threads count in parallel; a leading byte order mark is ignored, and a line that is not
// text is refused (DataError naming file:line), repaired or left out per on_invalid
// (checked_line). Throws FileError if a file cannot be opened or read.
//
// count_tokens counts the tokens as they are (for vocabularies). count_words counts the words
// BPE is learnt from and applied to: bpe_word_of() each token.
WordCounts count_tokens(const std::vector<std::string>& paths, int threads,
                        OnInvalid on_invalid = OnInvalid::kError);
WordCounts count_words(const std::vector<std::string>& paths, int threads,
                       OnInvalid on_invalid = OnInvalid::kError);
// The same for text in memory, added to counts.
void add_tokens(std::string_view text, WordCounts& counts);
void add_words(std::string_view text, WordCounts& counts);

// The word a token stands for when learning or applying BPE: joiners (￭) at either end and a
// case mark (￨C, ￨U) at the end are stripped; empty (not counted) for a placeholder ｟…｠ and
// for a token with a reserved mark inside (escape ％XXXX, joiner, feature separator), which
// the tokenizer never splits into subwords.
std::string_view bpe_word_of(std::string_view token);

struct VocabCountOptions {
  long long min_count = 1;  // drop tokens seen fewer times
  long long max_size = 0;   // keep at most this many tokens (0 = all)
};

// Most frequent first; ties by token bytes ascending; cut-offs applied.
CountList sorted_counts(const WordCounts& counts, const VocabCountOptions& options = {});
// "token<TAB>count\n" lines of sorted_counts().
std::string format_counts(const WordCounts& counts, const VocabCountOptions& options = {});
// Reads token<TAB>count lines (name is used in messages) in file order. Throws FormatError
// naming file:line for a line that is not text (find_invalid_text), a line without exactly one
// TAB, an empty token, a count that is not a decimal number, or a token seen before. A leading
// byte order mark is ignored.
CountList parse_counts(std::string_view text, const std::string& name);
// Same from a file. Throws FileError if it cannot be read.
CountList load_counts(const std::string& path);

struct VocabOptions {
  long long max_size = 0;   // ids in all, the four specials included (0 = no limit)
  long long min_count = 1;  // tokens seen fewer times are left out (they become <unk>)
};

// Token ↔ id for a model. Ids 0–3 are the specials, then the tokens, most frequent first
// (ties by token bytes). Read-only after construction, so any number of threads may use it.
class Vocab {
 public:
  static constexpr int32_t kPadId = 0;
  static constexpr int32_t kUnkId = 1;
  static constexpr int32_t kBosId = 2;
  static constexpr int32_t kEosId = 3;
  static constexpr int32_t kSpecialCount = 4;
  static constexpr const char* kSpecials[kSpecialCount] = {"<pad>", "<unk>", "<s>", "</s>"};

  Vocab();  // the specials only
  // From counts (in any order: they are sorted as sorted_counts() does). A special token
  // among them keeps its fixed id and is not added again. Throws ConfigError for a negative
  // max_size or 0 < max_size < 4.
  static Vocab from_counts(const CountList& counts, const VocabOptions& options = {});
  static Vocab from_counts(const WordCounts& counts, const VocabOptions& options = {});
  // From a token<TAB>count file (FormatError at file:line for a bad line).
  static Vocab load(const std::string& path, const VocabOptions& options = {});

  int32_t id(std::string_view token) const;  // kUnkId if unknown
  // Throws InternalError for an id outside [0, size()).
  const std::string& token(int32_t id) const;
  long long count(int32_t id) const;  // 0 for the specials unless the counts had them
  int32_t size() const { return static_cast<int32_t>(tokens_.size()); }
  bool contains(std::string_view token) const;

  // "token<TAB>count" lines in id order, the specials first; from_string() reads it back
  // unchanged (this is the form embedded in model files). from_string throws FormatError
  // (name:line) for a bad line, missing specials or a duplicate token.
  std::string to_string() const;
  static Vocab from_string(std::string_view text, const std::string& name);

  bool operator==(const Vocab& o) const { return tokens_ == o.tokens_ && counts_ == o.counts_; }

 private:
  void add(const std::string& token, long long count);

  std::vector<std::string> tokens_;
  std::vector<long long> counts_;
  std::unordered_map<std::string, int32_t> ids_;
};

}  // namespace heed::text
