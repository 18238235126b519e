// BPE-dropout in training (Provilkov et al. 2020; heed-train --bpe-dropout): the training text
// is given tokenized but not BPE-segmented, kept as text, and segmented afresh for every epoch
// with each merge dropped with probability p; validation text (and heed-translate's input) gets
// plain BPE. Sentence i of epoch e is segmented with a random stream of (seed, e, i, side)
// alone — not of the thread count, the batch order or how many epochs this process ran — so a
// run resumed from a checkpoint sees exactly the segmentations of an uninterrupted one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heed/model/batch.h"
#include "heed/text/tokenizer.h"
#include "heed/text/vocab.h"

namespace heed::train {

enum class Side { kSource, kTarget };

struct BpeDropoutOptions {
  float p = 0.1f;         // each merge is dropped with this probability, in (0, 1)
  uint64_t seed = 1;      // with the epoch, sentence and side, seeds each segmentation
  int max_length = 0;     // a side segmented longer keeps its plain segmentation (0 = no limit)
  void validate() const;  // ConfigError for p outside (0, 1) or a negative max_length
};

class BpeDropout {
 public:
  // extra: the text processing the model records (model::record_tokenizer), which must
  // hold BPE codes (ConfigError otherwise).
  BpeDropout(const std::map<std::string, std::string>& extra, const BpeDropoutOptions& options);
  ~BpeDropout();

  // The text behind a line of tokens (detokenized), checked to be what the recorded tokenizer
  // writes without BPE: DataError naming name:line_number for a line already BPE-segmented (a
  // continuation mark, "hel￭ lo") or tokenized otherwise.
  std::string text_of(const std::vector<std::string>& tokens, const std::string& name,
                      long long line_number) const;
  // text in plain BPE tokens: what heed-translate makes of it.
  std::vector<std::string> plain(std::string_view text) const;
  // text segmented with dropout for sentence index of epoch, on side; its plain segmentation
  // when that is longer than max_length (*plain_kept set then, when given).
  std::vector<std::string> sample(std::string_view text, int64_t epoch, size_t index, Side side,
                                  bool* plain_kept = nullptr) const;
  // Every token a segmentation of text can give (text::Tokenizer::append_possible_tokens), each
  // added to counts with the count it has (0 when new): the vocabulary then maps none to <unk>.
  void add_possible_tokens(std::string_view text, text::WordCounts& counts) const;

  // The training pairs (as text_of gives them), kept for epoch().
  void set_pairs(std::vector<std::string> src, std::vector<std::string> tgt);
  size_t size() const { return src_.size(); }
  // The pairs of epoch as ids: sample() of both sides, on up to `threads` threads (the result
  // does not depend on it). *plain_kept counts the sides that kept their plain segmentation.
  std::vector<model::Example> epoch(int64_t epoch, const text::Vocab& src_vocab,
                                    const text::Vocab& tgt_vocab, int threads,
                                    long long* plain_kept = nullptr) const;

  const BpeDropoutOptions& options() const { return options_; }

 private:
  BpeDropoutOptions options_;
  std::unique_ptr<text::Tokenizer> unsegmented_, plain_, dropout_;
  std::vector<std::string> src_, tgt_;
};

}  // namespace heed::train
