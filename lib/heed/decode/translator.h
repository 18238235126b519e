// A trained model as a translator: the model's own text processing (tokenizer and BPE recorded
// in the model file, or whitespace tokens), batching, search, and alignments read off the
// attention — what heed-translate and heed-align run, so both are thin mains over this (as
// CTranslate2's Translator and TranslationOptions).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "heed/align/alignment_writer.h"
#include "heed/align/extract.h"
#include "heed/align/soft_alignment.h"
#include "heed/common/error.h"
#include "heed/decode/search.h"
#include "heed/decode/shortlist.h"
#include "heed/model/model_file.h"
#include "heed/model/seq2seq.h"
#include "heed/onednn/precision.h"
#include "heed/text/tokenizer.h"
#include "heed/text/vocab.h"

namespace heed::decode {

struct TranslationOptions {
  DecodeConfig decode;
  int batch_size = 32;         // sentences decoded (or force-decoded) together
  int max_input_length = 250;  // longer inputs are truncated, with a warning naming the line
  int max_pair_length = 1000;  // attend(): a side longer than this (tokens) is refused
  bool pretokenized = false;   // tokens in and out: no tokenizer, no BPE
  // What follows a translation after " ||| ": the name of an alignment format
  // (align/alignment_writer.h) that reads links or weights; empty: nothing.
  std::string alignment;
  align::ExtractOptions links;  // for a links format: argmax or threshold
  bool replace_unk = false;     // <unk> → the most attended source token
  ShortlistOptions shortlist;   // with a table: search scores a lexical shortlist only
  void validate() const;        // ConfigError
};

class Translator {
 public:
  // file is the loaded model (model::load_model(path)); path names it in messages. Reads
  // options.shortlist.table when given (DataError "table:line: what" for a bad line).
  Translator(model::ModelFile file, const std::string& path, TranslationOptions options,
             onednn::Precision precision = onednn::Precision::kF32);
  ~Translator();

  const model::Seq2Seq& model() const { return *model_; }
  const TranslationOptions& options() const { return options_; }
  // True when text is taken as whitespace-separated tokens: asked for, or the model records no
  // tokenizer.
  bool pretokenized() const { return !tokenizer_; }

  std::vector<std::string> tokenize(const std::string& line) const;
  std::string detokenize(const std::vector<std::string>& tokens) const;
  // The word of each token (text::word_indices; one word per token when pretokenized).
  std::vector<int> word_indices(const std::vector<std::string>& tokens) const;

  // Translates lines (line numbers first_line, first_line + 1, … name them in messages) into
  // one output per line, in order: the text (with " ||| " and the alignment when asked), or
  // with n_best > 1 the "id ||| text ||| score" lines joined by newlines. An empty line gives an
  // empty output. A line longer than the model's attention can score is returned as the error
  // too_long, and only the lines before it are translated (outputs is cut there).
  void translate(const std::vector<std::string>& lines, long long first_line,
                 const std::string& input_name, std::vector<std::string>& outputs,
                 std::optional<DataError>& too_long);

  // Forced decoding (teacher forcing, no search) of target given source, batched: the
  // attention of every decoder step, as heed-align extract writes it (soft_alignment.h). Pairs
  // with an empty side get no rows. A pair with a side longer than max_pair_length tokens (one
  // 10,000-word pair took 4.2 GB), or a source longer than the model's attention can score, is a
  // DataError naming input_name and the line (first_line + i): thrown, or with too_long given,
  // stored there and the pairs before it returned.
  std::vector<align::SoftAlignment> attend(const std::vector<std::string>& sources,
                                           const std::vector<std::string>& targets,
                                           long long first_line, const std::string& input_name,
                                           std::optional<DataError>* too_long = nullptr);

  // Decoder steps of the written best hypotheses (</s> included): throughput in logs.
  long long target_tokens() const { return target_tokens_; }
  // Source tokens read so far, and how many of them the model's vocabulary maps to <unk>.
  long long source_tokens() const { return source_tokens_; }
  long long unknown_source_tokens() const { return unknown_source_tokens_; }
  // With a shortlist: the mean number of target words scored per batch so far (0 before any).
  double mean_shortlist_size() const {
    return shortlist_batches_ ? double(shortlist_words_) / double(shortlist_batches_) : 0.0;
  }

 private:
  // The output of hypothesis h of the sentence numbered `sentence` (zero-based), its alignment
  // appended.
  std::string render(const Hypothesis& h, const std::vector<std::string>& source,
                     long long sentence) const;
  std::vector<int32_t> source_ids(const std::vector<std::string>& tokens) const;
  // Line `line` of input_name has more tokens than the model's attention has positions.
  DataError too_long_error(const std::string& input_name, long long line, size_t tokens) const;

  TranslationOptions options_;
  std::string path_;
  std::unique_ptr<model::Seq2Seq> model_;
  text::Vocab src_vocab_, tgt_vocab_;
  std::unique_ptr<text::Tokenizer> tokenizer_;                // null: pretokenized
  std::unique_ptr<Shortlist> shortlist_;                      // null: the whole vocabulary
  std::unique_ptr<align::AlignmentWriter> alignment_writer_;  // null: no alignment
  align::AlignmentInput alignment_input_ = align::AlignmentInput::kLinks;
  long long target_tokens_ = 0;
  long long source_tokens_ = 0, unknown_source_tokens_ = 0;
  long long shortlist_words_ = 0, shortlist_batches_ = 0;
};

}  // namespace heed::decode
