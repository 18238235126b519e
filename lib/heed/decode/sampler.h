// Drawing the next token at random from the model's distribution instead of taking the best:
// over the whole vocabulary, its K most probable tokens (top-k) or the fewest most probable
// tokens holding a share P of the probability (nucleus, Holtzman et al. 2020), after a
// temperature. The search's SamplingSearch (search.h) draws one token per step with it; as
// CTranslate2's RandomSampler, Marian's --output-sampling and fairseq's --sampling, for
// back-translation and other diverse output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heed/common/rng.h"

namespace heed::decode {

enum class SamplingMethod {
  kNone,     // no sampling: greedy or beam search
  kFull,     // the whole distribution
  kTopK,     // the top_k most probable tokens
  kNucleus,  // the fewest most probable tokens whose probability adds up to top_p or more
};

struct SamplingOptions {
  SamplingMethod method = SamplingMethod::kNone;
  // kTopK: K ≥ 1. More than a step scores (the vocabulary, or a shortlist) takes them all: a
  // shortlist's size changes from batch to batch, so K is clipped where it is used.
  int top_k = 0;
  float top_p = 1.0f;        // kNucleus: P in (0, 1]
  float temperature = 1.0f;  // log-probabilities are divided by it first: < 1 sharper, > 1 flatter
  // Every draw of a sentence comes from the stream make_rng(seed, that sentence's stream number)
  // (search.h, make_search).
  std::uint64_t seed = 1;
  bool enabled() const { return method != SamplingMethod::kNone; }
  void validate() const;  // ConfigError naming the option (--sampling, --temperature)
};

// The method of `--sampling none|full|topk:K|nucleus:P` with its parameter (temperature and
// seed left as they are); ConfigError in one line for anything else.
SamplingOptions parse_sampling(const std::string& spec);

class Sampler {
 public:
  explicit Sampler(SamplingOptions options);  // validated here (ConfigError)

  // A column of one row of `columns` log-probabilities, drawn from the distribution the options
  // describe, never `excluded` (-1: none; the search excludes </s> before --min-length, so the
  // draw is from the other tokens' renormalised probabilities). NaN and -inf have probability
  // 0; a row with no finite log-probability outside `excluded` is an InternalError. The same
  // row and generator state give the same column on every platform (no std:: distribution,
  // whose algorithm the standard leaves to the library).
  int draw(const float* log_probs, int columns, int excluded, Rng& rng);

  const SamplingOptions& options() const { return options_; }

 private:
  SamplingOptions options_;
  std::vector<double> weight_;  // per column: exp((log p - max) / temperature), 0 if not drawn
  std::vector<int> order_;      // the columns that may be drawn, most probable first (but kFull)
};

}  // namespace heed::decode
