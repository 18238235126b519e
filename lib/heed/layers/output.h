// The output layer: projection to the target vocabulary, log-softmax and the masked
// cross-entropy with optional label smoothing, forward and backward fused and done in chunks
// of rows, so that no more than one [chunk × V] buffer of logits ever exists (docs/onednn.md §8:
// a [tokens × V] buffer is hundreds of MB and falls out of cache).
//
// Label smoothing ε follows PyTorch's cross_entropy: the target distribution is
// (1 − ε)·onehot(y) + ε/V, so loss = (1 − ε)·(−log p_y) + ε·mean_v(−log p_v), and
// ∂loss/∂logits = p − (1 − ε)·onehot(y) − ε/V.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "heed/layers/parameters.h"
#include "heed/onednn/linear.h"
#include "heed/onednn/precision.h"
#include "heed/tensor/tensor.h"

namespace heed::layers {

struct LossSums {
  double loss = 0;     // Σ label-smoothed cross-entropy (what is optimised)
  double nll = 0;      // Σ −log p(y) (for perplexity)
  int64_t tokens = 0;  // rows counted (targets ≥ 0)
};

class OutputLayer {
 public:
  // chunk_rows 0: about kChunkLogits logits a chunk, kMinChunkRows to kMaxChunkRows rows.
  OutputLayer(int64_t hidden, int64_t vocab, onednn::Precision precision, int64_t chunk_rows = 0);

  // The rows a chunk holds decide the weight gradient's product, [V, rows]·[rows, H] a chunk:
  // on a Zen 5 in bf16, 256 rows ran it at 64 % of the matmul peak, its other two products at
  // 97-107 % (bench/results/train_primitives.tsv). 4M logits (16 MiB, twice: logits and log p)
  // give Multi30k's 4,371 target types 960 rows (959 rounded up to a multiple of
  // kRowMultiple); a 32k vocabulary stays at 256.
  static constexpr int64_t kChunkLogits = int64_t(1) << 22;
  static constexpr int64_t kMinChunkRows = 256;
  static constexpr int64_t kMaxChunkRows = 2048;
  static constexpr int64_t kRowMultiple = 64;

  // weight [V, H], bias [V]; implies weights_changed().
  void set_weights(Parameter& weight, Parameter& bias);
  void weights_changed();

  // x [..., H] (rows M), targets[M]: an id, or −1 to ignore the row (it is not projected: the
  // others are gathered first). Returns the sums over counted rows. With d_x (resized to x's shape,
  // overwritten): the gradient of grad_scale · loss w.r.t. x, and the weight and bias gradients
  // accumulate into the Parameters' grad tensors.
  LossSums loss(const tensor::Tensor& x, const int32_t* targets, float label_smoothing,
                float grad_scale, tensor::Tensor* d_x);

  // log p [M, V] for search (out resized).
  void log_probs(const tensor::Tensor& x, tensor::Tensor& out);

  // A shortlist for search: select_rows gathers the weight and bias rows of the vocabulary ids
  // (ascending, distinct; the set stays until the next call or weights_changed), and
  // selected_log_probs then gives log p [M, ids.size()], normalised over those words alone —
  // one product of width ids.size() instead of V. With every id selected it equals log_probs.
  void select_rows(const std::vector<int32_t>& ids);
  void selected_log_probs(const tensor::Tensor& x, tensor::Tensor& out);

 private:
  // loss() over x2 [rows, H] in chunks of chunk_rows_; dx2 [rows, H] or null.
  LossSums chunks(const tensor::Tensor& x2, const int32_t* targets, float label_smoothing,
                  float grad_scale, tensor::Tensor* dx2);

  int64_t hidden_;
  int64_t vocab_;
  int64_t chunk_rows_;
  onednn::Linear linear_;
  Parameter* weight_ = nullptr;
  Parameter* bias_ = nullptr;
  tensor::Tensor logits_;  // [chunk, V]
  tensor::Tensor log_p_;   // [chunk, V]
  // loss(): the rows with a target, their targets and where they came from.
  tensor::Tensor gathered_x_, gathered_dx_;
  std::vector<int32_t> gathered_targets_;
  std::vector<int64_t> kept_;
  // select_rows(): the gathered rows and their own product (its width changes with the set).
  tensor::Tensor selected_weight_, selected_bias_;
  std::unique_ptr<onednn::Linear> selected_;
};

}  // namespace heed::layers
