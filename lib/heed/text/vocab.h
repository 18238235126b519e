// Token counts (heed-tokenize vocab, learn-bpe) and the token ↔ id vocabulary of a model.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace heed::text {

using WordCounts = std::unordered_map<std::string, long long>;
using CountList = std::vector<std::pair<std::string, long long>>;

// Counts the space-separated tokens of tokenized text files ("-" = stdin), as they are.
WordCounts count_tokens(const std::vector<std::string>& paths, int threads);
// Counts words for BPE learning: joiners at either end and case marks (￨C, ￨U) are stripped,
// placeholders ｟…｠ are skipped (BPE never splits them).
WordCounts count_words(const std::vector<std::string>& paths, int threads);
// The word a token stands for when learning or applying BPE (see count_words).
std::string_view bpe_word_of(std::string_view token);

struct VocabCountOptions {
  long long min_count = 1;  // drop tokens seen fewer times
  long long max_size = 0;   // keep at most this many tokens (0 = all)
};

// Most frequent first; ties by token bytes ascending; cut-offs applied.
CountList sorted_counts(const WordCounts& counts, const VocabCountOptions& options = {});
// "token<TAB>count\n" lines of sorted_counts().
std::string format_counts(const WordCounts& counts, const VocabCountOptions& options = {});
// Reads token<TAB>count lines (name is used in messages). Throws FormatError at file:line.
CountList parse_counts(std::string_view text, const std::string& name);
CountList load_counts(const std::string& path);

// Token ↔ id for a model. Ids 0–3 are the specials, then tokens in count order.
class Vocab {
 public:
  static constexpr int32_t kPadId = 0;
  static constexpr int32_t kUnkId = 1;
  static constexpr int32_t kBosId = 2;
  static constexpr int32_t kEosId = 3;
  static constexpr const char* kSpecials[] = {"<pad>", "<unk>", "<s>", "</s>"};

  Vocab();  // the specials only
  // From counts (sorted_counts order); specials are not duplicated if present. max_size
  // counts the specials (0 = no limit).
  static Vocab from_counts(const CountList& counts, long long max_size = 0, long long min_count = 1);
  // From a token<TAB>count file (FormatError at file:line for a bad line).
  static Vocab load(const std::string& path, long long max_size = 0, long long min_count = 1);

  int32_t id(std::string_view token) const;  // kUnkId if unknown
  const std::string& token(int32_t id) const;
  int32_t size() const { return static_cast<int32_t>(tokens_.size()); }
  bool contains(std::string_view token) const;

  // "token<TAB>count" lines in id order (specials with count 0); from_string() reads it back.
  std::string to_string() const;
  static Vocab from_string(std::string_view text, const std::string& name);

 private:
  void add(const std::string& token, long long count);

  std::vector<std::string> tokens_;
  std::vector<long long> counts_;
  std::unordered_map<std::string, int32_t> ids_;
};

}  // namespace heed::text
