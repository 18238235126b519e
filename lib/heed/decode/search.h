// Search over an abstract step scorer, batched across sentences and beams: one loop keeps the
// hypotheses (rows, parents, attention, coverage, finished ones), and a SearchStrategy chooses
// each step's continuations — greedy, beam or sampling, as CTranslate2's SearchStrategy and
// Sampler. The model side (decode/model_scorer) implements StepScorer; tests drive the search
// with a scripted scorer whose best paths are known.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "heed/common/rng.h"
#include "heed/decode/sampler.h"

namespace heed::decode {

enum class LengthNormalization {
  kNone,     // raw log-probability
  kGnmt,     // log P / ((5 + |Y|) / 6)^alpha   (Wu et al. 2016)
  kAverage,  // log P / |Y|
};

// The widest beam heed searches with, and so the longest n-best list (heed-translate's
// --beam-size and --n-best take their range from it).
inline constexpr int kMaxBeamSize = 1000;

struct DecodeConfig {
  int beam_size = 5;  // 1 = greedy; at most kMaxBeamSize
  int n_best = 1;     // hypotheses returned per sentence
  LengthNormalization normalization = LengthNormalization::kGnmt;
  float alpha = 0.6f;             // GNMT length penalty exponent
  float coverage_penalty = 0.0f;  // GNMT beta (0 = off)
  float max_length_ratio = 2.0f;  // output tokens ≤ ratio · source + offset
  int max_length_offset = 10;
  int min_length = 0;           // </s> not allowed before this many tokens
  bool keep_attention = false;  // keep each hypothesis' attention rows
  SamplingOptions sampling;     // enabled: draw each token at random (beam_size must be 1)
  // ConfigError for impossible values (a beam outside [1, kMaxBeamSize], n_best > beam_size,
  // sampling with a beam, …). Once per run, by whoever owns the run's search (Translator,
  // train::Validator), before the strategy is built: search() itself does not check again.
  void validate() const;
};

LengthNormalization parse_normalization(const std::string& name);  // none | gnmt | average

// The model seen by the search. Rows are live hypotheses; each step the search says which row
// of the previous step every new row continues (parents) and which token it appends.
class StepScorer {
 public:
  virtual ~StepScorer() = default;
  virtual int vocab_size() const = 0;
  virtual int32_t eos_id() const = 0;
  virtual int32_t bos_id() const = 0;
  // Source length of sentence s (for the maximum output length and coverage).
  virtual int source_length(int sentence) const = 0;
  // One step for every row: row r of this step continues row parents[r] of the previous step
  // (at the first step: parents[r] is the sentence index) by appending tokens[r]. Returns the
  // scorer's own buffers, valid until the next call: log-probabilities of the next token,
  // row-major [rows, vocab], and with want_attention the attention weights of each row over
  // its sentence's source, [rows, max source length] (zero padded; null otherwise). A scorer
  // with a shortlist scores fewer columns than the vocabulary has: column c is token
  // token_ids[c] (ascending).
  struct Scores {
    const float* log_probs = nullptr;
    const float* attention = nullptr;
    int columns = 0;                     // 0: vocab_size(), column c is token c
    const int32_t* token_ids = nullptr;  // with columns > 0: the token of each column
  };
  virtual Scores step(const std::vector<int32_t>& parents, const std::vector<int32_t>& tokens,
                      bool want_attention) = 0;
};

struct Hypothesis {
  std::vector<int32_t> tokens;  // without <s> and </s>
  float log_prob = 0.0f;        // sum over the tokens and </s>
  float score = 0.0f;           // after length normalization and coverage penalty
  bool finished = true;         // false if cut at the maximum length
  // With keep_attention: one row per output token (and </s>), each of the source length.
  std::vector<std::vector<float>> attention;
};

// Normalized score of a hypothesis (exposed for tests and n-best output).
float normalized_score(float log_prob, int length, const DecodeConfig& config);

// A continuation of a row during search, ordered best first (ties: lower row, then lower token).
struct Candidate {
  float total;  // the row's log-probability and the token's
  int row;
  int32_t token;
  bool operator<(const Candidate& o) const {
    if (total != o.total) return total > o.total;
    if (row != o.row) return row < o.row;
    return token < o.token;
  }
};

// One sentence's live rows at one step: what a strategy chooses from. Row r's scores are
// row(r), `columns` log-probabilities (StepScorer::Scores), column c being token(c).
struct SentenceStep {
  int sentence = 0;                // its index in the batch
  int slots = 0;                   // continuations to choose, at most: its open beam slots
  int first_row = 0, end_row = 0;  // its rows of the step, [first_row, end_row)
  const float* log_probs = nullptr;
  int columns = 0;
  const int32_t* token_ids = nullptr;  // null: column c is token c
  const float* prefix = nullptr;       // per row of the step: its log-probability so far
  // Per row of the step: a token it may not take (-1: none), </s> before --min-length.
  const int32_t* excluded = nullptr;
  const float* row(int r) const {
    return log_probs + static_cast<size_t>(r) * static_cast<size_t>(columns);
  }
  int32_t token(int column) const { return token_ids ? token_ids[column] : column; }
};

// How each step's continuations are chosen: the seam where a new decoding method goes in.
// search() does the bookkeeping (a continuation ending with </s> finishes a hypothesis and
// closes its slot; one reaching the maximum length is cut), so a strategy only picks tokens.
class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  // Before each batch's search: sentence s of the batch is stream streams[s] (heed-translate:
  // its line number). Only a strategy that draws at random keeps it (SamplingSearch); a strategy
  // is built once per run (make_search) and told each batch's streams here.
  virtual void start_batch(const std::vector<std::uint64_t>& streams) { (void)streams; }
  // Appends to `chosen` (empty on entry) the continuations step's sentence takes, at most
  // step.slots, best first: rows of the step, total = prefix[row] + the token's log-probability.
  // At least one when some row has a token it may take.
  virtual void choose(const SentenceStep& step, std::vector<Candidate>& chosen) = 0;
};

// The most probable token of each row (beam size 1: one row); ties go to the smaller token. A
// beam of one slot, without the sort.
class GreedySearch final : public SearchStrategy {
 public:
  void choose(const SentenceStep& step, std::vector<Candidate>& chosen) override;
};

// The best `slots` continuations over all the sentence's rows.
class BeamSearch final : public SearchStrategy {
 public:
  void choose(const SentenceStep& step, std::vector<Candidate>& chosen) override;
};

// One token drawn per row (beam size 1: one row) by a Sampler. Sentence s of a batch draws from
// its own generator, make_rng(options.seed, streams[s]) (start_batch), so its draws depend on no
// other sentence of the batch: given the same scores, not on the batch size or order, nor on the
// thread count.
class SamplingSearch final : public SearchStrategy {
 public:
  // streams: the first batch's (start_batch), or none yet.
  explicit SamplingSearch(const SamplingOptions& options,
                          const std::vector<std::uint64_t>& streams = {});
  void start_batch(const std::vector<std::uint64_t>& streams) override;
  void choose(const SentenceStep& step, std::vector<Candidate>& chosen) override;

 private:
  Sampler sampler_;
  std::uint64_t seed_;
  std::vector<Rng> rngs_;  // per sentence of the batch
};

// The strategy a validated config asks for (DecodeConfig::validate): sampling when
// config.sampling is enabled, greedy for beam size 1, else beam. Built once per run.
std::unique_ptr<SearchStrategy> make_search(const DecodeConfig& config);

// For each of `sentences` sentences, up to n_best hypotheses, best first, each step's
// continuations chosen by strategy (told the batch's streams already). config is validated
// (DecodeConfig::validate, once per run): it is not checked again here.
std::vector<std::vector<Hypothesis>> search(StepScorer& scorer, int sentences,
                                            const DecodeConfig& config, SearchStrategy& strategy);
// One search on its own (tests, a single batch): config validated, make_search(config), sentence
// s sampling (if at all) on stream s.
std::vector<std::vector<Hypothesis>> search(StepScorer& scorer, int sentences,
                                            const DecodeConfig& config);

// Appends the n best continuations (base + log_probs[v]) of one row to out, best first; ties go
// to the smaller token, as in Candidate's order (token_ids, when given, are ascending: the
// column order is theirs); `excluded` (-1: none) never enters. This scan is the
// search's whole cost on a large vocabulary (exposed for tests).
void add_best_of_row(const float* log_probs, int columns, const int32_t* token_ids, float base,
                     int row, int32_t excluded, size_t n, std::vector<Candidate>& out);

}  // namespace heed::decode
