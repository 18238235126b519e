// Private to lib/heed/attention: the machinery every scoring mechanism shares — keys and
// lengths from prepare(), each row's span (sentence or window), the normaliser, positional
// weighting, the context product, their backward and select() — so that a mechanism file only
// says how it scores (and what it precomputes, where its window is centred, what state it keeps).
#pragma once

#include <string>
#include <vector>

#include "heed/attention/attention.h"
#include "heed/attention/registry.h"
#include "heed/onednn/matmul.h"
#include "heed/tensor/row_buffer.h"

namespace heed::attention {

// What select() does to the key side (the keys and what a mechanism computes from them alone):
// it is the same for every row that descends from one row of prepare() — a sentence's
// hypotheses in a beam search — so it is copied only when that layout changes (a sentence
// starts its beam or finishes), and then within its own buffer where it can be: a beam of 5 over
// 64 sentences otherwise held the keys twice (the old rows and the new) and copied them at
// every step. The key side is held in slots: one per row, or, for a mechanism that shares it
// (ScoredAttention::shares_key_side), one per run of rows of one origin — a sentence's beam then
// reads one copy of its keys, not one per hypothesis.
struct KeySelection {
  bool moved = false;         // false: every slot keeps its key side, nothing is copied
  bool in_place = false;      // rows[j] >= j for every j: copied forward within the buffer
  std::vector<int64_t> rows;  // for each new slot, the old slot whose key side it takes
};
// t [S, N, C] becomes its slots selected by selection: nothing when it has not moved; in t's own
// buffer when in place; else through scratch (swapped with t). t must be owned by the caller
// and not viewed elsewhere.
void select_key_side(tensor::Tensor& t, const KeySelection& selection, tensor::Tensor& scratch);

// The row of prepare() each current row descends from, the key-side slot each row reads, and
// what a select() must do to the key side: each new slot takes the key side of the last old slot
// of its origin, the latest place it can be read from, so that a beam that only shrinks is copied
// forward in place.
class KeySideRows {
 public:
  // prepare(): rows rows, each its own origin and slot.
  void reset(size_t rows);
  // The plan for select(rows) (rows checked by select_lengths first); in place only where the
  // caller owns the key side's buffers (owned); shared: the rows of a run of one origin read one
  // slot (else one slot per row).
  const KeySelection& select(const std::vector<int64_t>& rows, bool owned, bool shared);
  // Each row's slot, its place among the slot's rows, and the most rows any slot has.
  const std::vector<int64_t>& row_slots() const { return row_slots_; }
  const std::vector<int64_t>& row_places() const { return row_places_; }
  int64_t largest_group() const { return largest_group_; }

 private:
  std::vector<int64_t> origins_, new_origins_;            // per row
  std::vector<int64_t> slot_origins_, new_slot_origins_;  // per slot
  std::vector<int64_t> row_slots_, row_places_, last_slot_of_origin_;
  size_t prepared_rows_ = 0;
  int64_t largest_group_ = 1;
  KeySelection plan_;
};

class ScoredAttention : public Attention {
 public:
  ScoredAttention(std::string name, const AttentionConfig& config);

  const std::string& name() const override { return name_; }
  int64_t context_size() const override { return config_.key_size; }
  void prepare(const tensor::Tensor& keys, const std::vector<int64_t>& lengths,
               bool training) override;
  void forward(const tensor::Tensor& query, int64_t step, tensor::Tensor& context,
               tensor::Tensor* weights, AttentionTape* tape) override;
  void backward(AttentionTape& tape, const tensor::Tensor& d_context,
                tensor::Tensor& d_query) override;
  void finish_backward(tensor::Tensor& d_keys) override;
  void select(const std::vector<int64_t>& rows) override;
  void weights_changed() override {}

 protected:
  // After keys_ and lengths_ are set.
  virtual void precompute(bool training) = 0;
  // Raw scores [N, Tq, S] (resized by the caller) for query [Tq, N, Q] at target positions
  // step…; only the entries inside each row's span (row b·Tq + t) are read, so a windowed
  // mechanism scores only its window. May save to tape.
  virtual void score(const tensor::Tensor& query, int64_t step, const std::vector<Span>& spans,
                     tensor::Tensor& scores, AttentionTape* tape) = 0;
  // d_scores [N, Tq, S] → d_query (overwritten); key-side gradients accumulate in
  // d_keys_ (through the keys) or the mechanism's own buffers (through its precomputation).
  virtual void score_backward(AttentionTape& tape, const tensor::Tensor& d_scores,
                              tensor::Tensor& d_query) = 0;
  // Adds the gradient through the precomputation to d_keys and finishes parameter gradients.
  virtual void precompute_backward(tensor::Tensor& d_keys) = 0;
  // Gathers the precomputed rows (inference): what depends on the keys alone through keys
  // (select_key_side), a row's own state (coverage) through rows.
  virtual void select_precomputed(const std::vector<int64_t>& rows, const KeySelection& keys) = 0;
  // The keys (and what is computed from them) are new: products that hold a packed copy of a
  // key-side operand across steps must drop it.
  virtual void keys_changed() { context_mm_.weights_changed(); }
  // Windowed mechanisms (window_ ≥ 0): the centre p of each row [N·Tq] (row b·Tq + t); the
  // span is window_span(p, window_, length). With gaussian_sigma_ > 0 the normalised weights are
  // multiplied by exp(−(s − p)² / 2σ²), and centres_backward gets dL/dp to add to d_query.
  virtual void centres(const tensor::Tensor& /*query*/, int64_t /*step*/, float* /*out*/,
                       AttentionTape* /*tape*/) {}
  virtual void centres_backward(AttentionTape& /*tape*/, const float* /*d_centres*/,
                                tensor::Tensor& /*d_query*/) {}
  // Stateful mechanisms: the final weights of a forward (to update the state), and in backward
  // the gradient reaching those weights (to add what flows back through the state), before the
  // positional weighting's and the normaliser's backward.
  virtual void weights_formed(const tensor::Tensor& /*weights*/, AttentionTape* /*tape*/) {}
  virtual void weights_backward(AttentionTape& /*tape*/, tensor::Tensor& /*d_weights*/) {}

  // Decoding (after select()): whether the mechanism reads its key side by slot, a sentence's
  // hypotheses sharing one (KeySideRows), through key_slot_rows() or grouped_product() — its
  // registry entry's trait. Then keys_ and what select_precomputed gathers are [S, J, ·] over
  // the J slots, not the rows.
  bool shares_key_side() const { return shares_key_side_; }
  // Whether the key side is held by slot now (a select() of a sharing mechanism since prepare()).
  bool grouped() const { return grouped_; }
  // Grouped: each row's slot.
  const std::vector<int64_t>& key_slot_rows() const { return key_rows_.row_slots(); }
  // Grouped, one query per row: out's row i (of [rows, C] rows, the layout of [1, N, C] and
  // [N, 1, C] alike) = x's row i (of [rows, X]) times matrix slot(i) of b (J matrices [X, C]).
  // The rows of a slot are multiplied as one matrix, padded to the largest group.
  void grouped_product(onednn::MatMul& mm, const tensor::Tensor& x, const onednn::MatrixRef& b,
                       tensor::Tensor& out, const onednn::MatMulOptions& options);

  // Options for a product whose B operand is key-side: outside training it stays the same over
  // the steps of a batch, so it is packed (and converted to bf16) once, not at every step.
  onednn::MatMulOptions key_side_options() const {
    onednn::MatMulOptions options;
    options.constant_b = !training_;
    return options;
  }

  // The rows (queries per step); the key side's slots are keys_.dim(1), the same until a
  // sharing mechanism's select().
  int64_t batch() const { return int64_t(lengths_.size()); }
  int64_t source_length() const { return keys_.dim(0); }

  AttentionConfig config_;
  tensor::Tensor keys_;  // [S, N, K]: a view of the caller's keys, or owned after select()
  std::vector<int64_t> lengths_;
  tensor::Tensor d_keys_;  // [S, N, K] accumulated over backward() calls
  bool training_ = false;
  int64_t window_ = -1;         // half width D of a local window; −1: the whole sentence
  float gaussian_sigma_ = 0.f;  // > 0: Gaussian positional weighting around the centre

 private:
  void windowed_context(const tensor::Tensor& a, const std::vector<Span>& spans,
                        tensor::Tensor& context) const;
  void windowed_context_backward(const tensor::Tensor& a, const std::vector<Span>& spans,
                                 const tensor::Tensor& d_context);

  std::string name_;
  bool shares_key_side_;
  // select(): keys_ becomes a view of one of two owned buffers (ping-pong, so beam steps
  // allocate nothing once the shapes have been seen); -1 while keys_ views the caller's keys.
  tensor::Tensor key_buffers_[2];
  int key_buffer_ = -1;
  KeySideRows key_rows_;
  bool grouped_ = false;
  tensor::Tensor padded_in_, padded_out_;  // grouped_product's [J, G, ·] operands
  std::vector<int64_t> selected_lengths_;
  tensor::Tensor scores_, d_weights_;
  std::vector<float> d_centres_;
  AttentionTape inference_;  // spans, centres and pre-weighting weights outside training

 protected:
  onednn::MatMul context_mm_;

 private:
  onednn::MatMul d_weights_mm_, d_keys_mm_;
  // A stepped decoder's weights [N, S] and context gradients [N, K], every step's, for
  // d_keys_ += aᵀ·d c in one batched product at finish_backward (a step's own has inner size
  // 1: 64 products of one outer product each, ~1 % of the matmul peak).
  tensor::RowBuffer kept_weights_, kept_d_context_;
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
  void score(const tensor::Tensor& query, int64_t step, const std::vector<Span>& spans,
             tensor::Tensor& scores, AttentionTape* tape) override;
  void score_backward(AttentionTape& tape, const tensor::Tensor& d_scores,
                      tensor::Tensor& d_query) override;
  void precompute_backward(tensor::Tensor&) override {}
  void select_precomputed(const std::vector<int64_t>&, const KeySelection&) override {}
  void keys_changed() override {
    ScoredAttention::keys_changed();
    score_mm_.weights_changed();
  }

 private:
  float alpha_;
  onednn::MatMul score_mm_, d_query_mm_, d_proj_mm_;
};

// InternalError unless keys is [S, N, key_size] with lengths[n] in [1, S] (prepare()).
void check_keys(const tensor::Tensor& keys, const std::vector<int64_t>& lengths, int64_t key_size);
// lengths = lengths[rows[i]] for each i, through scratch (select()); InternalError if a row is out
// of range.
void select_lengths(std::vector<int64_t>& lengths, const std::vector<int64_t>& rows,
                    std::vector<int64_t>& scratch);

// ConfigError unless the query and key sizes are equal (q·h needs it), naming the mechanism.
void require_equal_sizes(const std::string& name, const AttentionConfig& config);

// dst [S, N', C] = src [S, N, C] rows rows[i] along N.
void gather_batch(const tensor::Tensor& src, const std::vector<int64_t>& rows, tensor::Tensor& dst);
// t = t gathered along N, through scratch (swapped with t: no allocation once both are large
// enough). t must be owned by the caller and not viewed elsewhere.
void regather_batch(tensor::Tensor& t, const std::vector<int64_t>& rows, tensor::Tensor& scratch);

// FLOP counts (registry.h AttentionFlops) of the parts the mechanisms share, added to flops.
// A ScoredAttention scoring by a product with a key-side matrix of `width` columns (the keys,
// W_a h_s, location's rows of W_a) over `span` positions per query: the scores and the context,
// 2·N·Tq·span·(width + K) forward; backward, each product's two gradients, twice that.
void add_product_flops(AttentionFlops& flops, const AttentionShape& shape, int64_t span,
                       int64_t width, int64_t key_size);
// A projection of the keys [S, N, in] → [S, N, out] in prepare() (W_a h_s, U h_s + b):
// 2·N·S·in·out, its backward (data and weights) twice that.
void add_key_projection_flops(AttentionFlops& flops, const AttentionShape& shape, int64_t in,
                              int64_t out);
// A projection of the query rows [Tq, N, in] → [Tq, N, out] in forward() (W q): 2·N·Tq·in·out,
// its backward twice that.
void add_query_projection_flops(AttentionFlops& flops, const AttentionShape& shape, int64_t in,
                                int64_t out);

// The registration call of each built-in mechanism (attention/<file>.cpp).
#define HEED_ATTENTION(file) void register_##file();
#include "heed/attention/builtin_mechanisms.inc"
#undef HEED_ATTENTION

}  // namespace heed::attention
