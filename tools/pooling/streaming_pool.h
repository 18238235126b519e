// The front end of heed-pooling's attention and mean models, fused and streaming: for each
// sequence, one pass over its steps computes the step layer h_t = leaky(W_s x_t + b_s), the score
// e_t, an online softmax (running maximum and sum, Milakov & Gimelshein 2018) and the weighted sum
// c = Σ α_t h_t, so nothing of size T·N·W is ever stored. The backward pass recomputes h_t and
// α_t from the inputs and the two numbers per sequence the forward kept (the maximum and the sum),
// which costs a second step-layer evaluation (2·W multiply-adds per step) and saves the
// T·N·W activation (0.4 GB at T = 10⁴ with N = 100 and W = 100, per copy).
//
// Scores (ScoreKind): Raffel & Ellis's tanh(w·h + b); the same without the tanh (unbounded); a
// learned scale β·tanh(w·h + b) (a temperature: tanh caps the ratio of two steps' weights at
// e^2β); the tanh with one bias per position, b_t (the Keras-style layer with a bias of shape
// (T, 1)); and plain mean pooling (α_t = 1/L). The step layer takes two inputs per step (value,
// marker), as the long-term-memory problems have.
//
// Work is split into a fixed number of sequence chunks, each with its own gradient buffer,
// reduced in chunk order: results do not depend on the number of threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace heed::pooling {

enum class ScoreKind { kTanh, kLinear, kScaledTanh, kPositionalTanh, kMean };
ScoreKind parse_score_kind(const std::string& name);  // "tanh" | "linear" | "scaled-tanh" | …
std::string to_string(ScoreKind kind);

// Read-only views of the front end's parameters. score_weight, score_bias and score_scale are
// unused by kMean; score_bias has max_length entries for kPositionalTanh, one otherwise.
struct StreamingPoolWeights {
  int64_t width = 0;                    // W
  const float* step_weight = nullptr;   // [W, 2]
  const float* step_bias = nullptr;     // [W]
  const float* score_weight = nullptr;  // [W]
  const float* score_bias = nullptr;    // [1] or [max_length]
  const float* score_scale = nullptr;   // [1], kScaledTanh only
};

// Gradient buffers, same shapes; backward() adds to them.
struct StreamingPoolGrads {
  float* step_weight = nullptr;
  float* step_bias = nullptr;
  float* score_weight = nullptr;
  float* score_bias = nullptr;
  float* score_scale = nullptr;
};

class StreamingPool {
 public:
  StreamingPool(ScoreKind kind, int64_t width, int64_t max_length);

  ScoreKind kind() const { return kind_; }
  int64_t score_bias_size() const;  // max_length for kPositionalTanh, else 1
  bool has_score() const { return kind_ != ScoreKind::kMean; }

  // inputs [T, N, 2] time-major; lengths[n] in [1, T] (T ≤ max_length); pooled [N * W].
  // Keeps the per-sequence softmax maximum and sum for backward().
  void forward(const StreamingPoolWeights& weights, const float* inputs, int64_t steps,
               int64_t count, const std::vector<int64_t>& lengths, float* pooled);
  // After forward() with the same weights and inputs: d_pooled [N * W] → grads.
  void backward(const StreamingPoolWeights& weights, const float* inputs, const float* pooled,
                const float* d_pooled, const StreamingPoolGrads& grads);
  // The attention weights α [N, T] of the last forward, recomputed (0 past each length);
  // for inspection (what the positional bias learns), not for training.
  std::vector<float> weights_of_last_forward(const StreamingPoolWeights& weights) const;

 private:
  ScoreKind kind_;
  int64_t width_, max_length_;
  // The last forward's shapes and per-sequence softmax statistics.
  const float* inputs_ = nullptr;
  int64_t steps_ = 0, count_ = 0;
  std::vector<int64_t> lengths_;
  std::vector<float> max_, sum_;
};

}  // namespace heed::pooling
