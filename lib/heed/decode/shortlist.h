// A lexical shortlist for decoding, as Marian's --shortlist: per batch the output layer scores
// only the target words the batch's source words translate to (a lexical table such as
// `heed-align ibm2 --lexical-table` writes, docs/formats.md), the most frequent target words and
// the special tokens, so the projection to the vocabulary shrinks from V rows to a few hundred.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "heed/text/vocab.h"

namespace heed::decode {

struct ShortlistOptions {
  std::string table;   // lexical table file; empty: no shortlist
  int frequent = 100;  // the most frequent target words always scored
  int best = 50;       // translations per source word, most probable first
  // The shortlist is filled up with frequent words to a multiple of this many words, so that
  // batches share a few shapes of the output product and softmax, whose oneDNN kernels are
  // built once per shape: with a new shape per sentence, beam search with batches of one
  // spends more on building kernels than the shortlist saves.
  int columns_multiple = 64;
  void validate() const;  // ConfigError
};

// "from<TAB>to<TAB>probability" lines: for each source word, its translations.
class LexicalTable {
 public:
  struct Translation {
    std::string word;
    float probability = 0;
  };

  // Lines of text (name says where they come from in messages). Throws DataError
  // "name:line: what" for a line without exactly three TAB-separated fields, an empty word,
  // a probability that is not a number in [0, 1], or text that is not UTF-8. Empty lines are
  // skipped; the entries of a word may come in any order and are sorted best first (ties by
  // the word's bytes).
  static LexicalTable parse(std::string_view text, const std::string& name);
  // Same from a file; FileError if it cannot be read.
  static LexicalTable load(const std::string& path);

  // The translations of a source word, best first (empty if the table has none).
  const std::vector<Translation>& translations(const std::string& source) const;
  size_t size() const { return entries_.size(); }  // source words

 private:
  std::vector<std::pair<std::string, std::vector<Translation>>> entries_;  // sorted by word
};

class Shortlist {
 public:
  // The table's words as ids of the model's vocabularies: a source word the model does not
  // know is dropped, and so are translations outside the target vocabulary (they do not count
  // towards options.best).
  Shortlist(const LexicalTable& table, const text::Vocab& source_vocab,
            const text::Vocab& target_vocab, const ShortlistOptions& options);

  // The target ids to score for a batch whose sources hold these ids (padding included: the
  // pad id has no translations): the specials, the options.frequent most frequent words (a
  // model's vocabulary is ordered by frequency, so they are ids kSpecialCount …
  // kSpecialCount + frequent − 1) and the options.best translations of each source id, in
  // ascending order without repeats; then filled up with the next most frequent words to a
  // multiple of options.columns_multiple (or the whole vocabulary).
  std::vector<int32_t> candidates(const std::vector<int32_t>& source_ids) const;

 private:
  int32_t target_size_;
  int32_t always_;  // ids below this are always scored
  int64_t columns_multiple_;
  std::vector<std::vector<int32_t>> translations_;  // per source id: its best target ids
};

}  // namespace heed::decode
