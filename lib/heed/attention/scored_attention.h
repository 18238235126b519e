// Private to lib/heed/attention: the machinery every scoring mechanism shares — keys and
// lengths from prepare(), masked softmax, the context product, their backward and select() —
// so that a mechanism file only says how it scores (and what it precomputes).
#pragma once

#include <string>
#include <vector>

#include "heed/attention/attention.h"
#include "heed/onednn/matmul.h"

namespace heed::attention {

class ScoredAttention : public Attention {
 public:
  ScoredAttention(std::string name, const AttentionConfig& config);

  const std::string& name() const override { return name_; }
  int64_t context_size() const override { return config_.key_size; }
  void prepare(const tensor::Tensor& keys, const std::vector<int64_t>& lengths,
               bool training) override;
  void forward(const tensor::Tensor& query, tensor::Tensor& context, tensor::Tensor* weights,
               AttentionTape* tape) override;
  void backward(AttentionTape& tape, const tensor::Tensor& d_context,
                tensor::Tensor& d_query) override;
  void finish_backward(tensor::Tensor& d_keys) override;
  void select(const std::vector<int64_t>& rows) override;
  void weights_changed() override {}

 protected:
  // After keys_ and lengths_ are set.
  virtual void precompute(bool training) = 0;
  // Raw scores [N, Tq, S] (resized by the caller) for query [Tq, N, Q]; may save to tape.
  virtual void score(const tensor::Tensor& query, tensor::Tensor& scores, AttentionTape* tape) = 0;
  // d_scores [N, Tq, S] → d_query (overwritten); key-side gradients accumulate in
  // d_keys_ (through the keys) or the mechanism's own buffers (through its precomputation).
  virtual void score_backward(AttentionTape& tape, const tensor::Tensor& d_scores,
                              tensor::Tensor& d_query) = 0;
  // Adds the gradient through the precomputation to d_keys and finishes parameter gradients.
  virtual void precompute_backward(tensor::Tensor& d_keys) = 0;
  // Gathers the precomputed rows (inference).
  virtual void select_precomputed(const std::vector<int64_t>& rows) = 0;
  // The keys (and what is computed from them) are new: products that hold a packed copy of a
  // key-side operand across steps must drop it.
  virtual void keys_changed() { context_mm_.weights_changed(); }
  // Options for a product whose B operand is key-side: outside training it stays the same over
  // the steps of a batch, so it is packed (and converted to bf16) once, not at every step.
  onednn::MatMulOptions key_side_options() const {
    onednn::MatMulOptions options;
    options.constant_b = !training_;
    return options;
  }

  int64_t batch() const { return keys_.dim(1); }
  int64_t source_length() const { return keys_.dim(0); }

  AttentionConfig config_;
  tensor::Tensor keys_;  // [S, N, K]: a view of the caller's keys, or owned after select()
  std::vector<int64_t> lengths_;
  tensor::Tensor d_keys_;  // [S, N, K] accumulated over backward() calls
  bool training_ = false;

 private:
  std::string name_;
  // select(): keys_ becomes a view of one of two owned buffers (ping-pong, so beam steps
  // allocate nothing once the shapes have been seen); -1 while keys_ views the caller's keys.
  tensor::Tensor key_buffers_[2];
  int key_buffer_ = -1;
  std::vector<int64_t> selected_lengths_;
  tensor::Tensor scores_, d_weights_;

 protected:
  onednn::MatMul context_mm_;

 private:
  onednn::MatMul d_weights_mm_, d_keys_mm_;
};

// Scores as a product with a key-side matrix P [S, N, Q]: the keys themselves (dot,
// scaled-dot) or W_a·h_s (general), scaled by alpha.
class ProductAttention : public ScoredAttention {
 public:
  ProductAttention(std::string name, const AttentionConfig& config, float alpha);

 protected:
  // P; keys_ for dot products.
  virtual const tensor::Tensor& projected_keys() const { return keys_; }
  // Where d P accumulates.
  virtual tensor::Tensor& projected_grad() { return d_keys_; }
  void precompute(bool) override {}
  void score(const tensor::Tensor& query, tensor::Tensor& scores, AttentionTape* tape) override;
  void score_backward(AttentionTape& tape, const tensor::Tensor& d_scores,
                      tensor::Tensor& d_query) override;
  void precompute_backward(tensor::Tensor&) override {}
  void select_precomputed(const std::vector<int64_t>&) override {}
  void keys_changed() override {
    ScoredAttention::keys_changed();
    score_mm_.weights_changed();
  }

 private:
  float alpha_;
  onednn::MatMul score_mm_, d_query_mm_, d_proj_mm_;
};

// ConfigError unless the query and key sizes are equal (q·h needs it), naming the mechanism.
void require_equal_sizes(const std::string& name, const AttentionConfig& config);

// dst [S, N', C] = src [S, N, C] rows rows[i] along N.
void gather_batch(const tensor::Tensor& src, const std::vector<int64_t>& rows, tensor::Tensor& dst);
// t = t gathered along N, through scratch (swapped with t: no allocation once both are large
// enough). t must be owned by the caller and not viewed elsewhere.
void regather_batch(tensor::Tensor& t, const std::vector<int64_t>& rows, tensor::Tensor& scratch);

// The registration call of each built-in mechanism (attention/<file>.cpp).
#define HEED_ATTENTION(file) void register_##file();
#include "heed/attention/builtin_mechanisms.inc"
#undef HEED_ATTENTION

}  // namespace heed::attention
