// Attention over encoder states, one interface for every mechanism (docs/attention.md).
//
// A mechanism scores a query q against each key h_s; the shared machinery (normalization.h,
// ScoredAttention) restricts each row to its span (the sentence, or a window), normalises
// (softmax or sparsemax), applies any positional weighting and forms the context
// c = Σ_s a_s h_s. Per sentence batch:
//   prepare(keys, lengths)      once: the key-side precomputation (W_a h_s, U h_s + b)
//   forward(query, step) …      once per decoder step (Tq = 1) or once for all steps (Tq = T);
//                               step is the absolute target position of the query's first row
//   backward(tape, d_context) … in reverse order of the forwards, one tape each
//   finish_backward(d_keys)     once: gradients reaching the keys, through the values, the
//                               scores and the precomputation
// Parameter gradients accumulate into the ParameterStore's grad tensors.
//
// Layouts are time-major like the RNNs: keys [S, N, K], queries [Tq, N, Q], contexts [Tq, N, C]
// (C = context_size(), K for most mechanisms). Attention weights are [N, Tq, S] (one row per
// query, positions outside the row's span exactly 0).
//
// A new mechanism is one file in lib/heed/attention/ that subclasses Attention (usually through
// ScoredAttention) and registers itself with its traits and options (docs/attention.md "Adding a
// mechanism").
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "heed/attention/normalization.h"
#include "heed/attention/options.h"
#include "heed/layers/parameters.h"
#include "heed/onednn/precision.h"
#include "heed/tensor/tensor.h"

namespace heed::attention {

struct AttentionConfig {
  int64_t query_size = 0;     // Q: decoder state width
  int64_t key_size = 0;       // K: encoder output width
  int64_t attention_dim = 0;  // A: hidden width of additive-style scores (0 = query_size)
  Normalizer normalizer = Normalizer::kSoftmax;  // for mechanisms whose traits say normalizes
  OptionValues options;  // the mechanism's own options; resolve_attention resolves and checks them
  onednn::Precision precision = onednn::Precision::kF32;
};

// A: attention_dim, or query_size when it is 0.
inline int64_t resolved_attention_dim(const AttentionConfig& config) {
  return config.attention_dim > 0 ? config.attention_dim : config.query_size;
}

// What a mechanism is, for the decoders, the tools and the tests: declared once, in its registry
// entry (registry.h AttentionInfo::traits).
struct AttentionTraits {
  // Keeps state from one step to the next (coverage): decoders then run it step by step and in
  // order, also under teacher forcing, and select() carries the state along with the beams.
  bool stateful = false;
  // Forms per-position weights on its way to the context. False for linear attention, whose
  // weights forward() computes only when they are asked for (alignment).
  bool position_weights = true;
  // In a beam search a sentence's hypotheses read one copy of its key side (scored_attention.h
  // KeySideRows): decoding memory grows with the sentences, not the hypotheses
  // (decode/memory.cpp estimates from this).
  bool shares_key_side = false;
  // Reads the query (false for ff-pool: one context per sentence, the same at every step).
  bool uses_query = true;
  // Its weights come from the shared normaliser, so --attention-normalizer applies.
  bool normalizes = true;
  // Its score keeps a value for every attention unit at every source position (additive's tanh
  // over W·s + U·h): training holds N·T·S·A of them for the backward pass, not N·T·S
  // (train/memory.cpp estimates from this).
  bool keeps_unit_activations = false;
};

// What backward() needs from one forward(): owned by the caller (one per decoder step, reused
// across batches so that nothing is allocated once the largest batch has been seen).
struct AttentionTape {
  tensor::Tensor query;              // view of the caller's query (must stay unchanged)
  int64_t step = 0;                  // the absolute target position of the query's first row
  tensor::Tensor weights;            // [N, Tq, S] the weights the context was formed with
  tensor::Tensor normalized;         // [N, Tq, S] before positional weighting (when applied)
  tensor::Tensor centres;            // [N, Tq] window centres (windowed mechanisms)
  std::vector<Span> spans;           // [N·Tq] each row's span
  std::deque<tensor::Tensor> saved;  // mechanism-specific intermediates
  // Gradient of a loss on the weights themselves (guided alignment), [N, Tq, S] like weights,
  // added to what the context sends back; null for none. The caller sets it before backward().
  const tensor::Tensor* d_weights = nullptr;

  // saved[index], growing saved as needed (a tape is reused across batches). A deque: growing
  // it keeps references to the slots already taken valid.
  tensor::Tensor& slot(size_t index) {
    if (saved.size() <= index) saved.resize(index + 1);
    return saved[index];
  }
};

class Attention {
 public:
  virtual ~Attention() = default;

  // Registry name ("general", …).
  virtual const std::string& name() const = 0;
  // Width C of the context vector: key_size for most, 0 for "none" (then forward writes an empty
  // context and the decoders' concatenations have no context columns).
  virtual int64_t context_size() const = 0;

  // keys [S, N, K] time-major, lengths[n] in [1, S]. keys must stay alive and unchanged until
  // the next prepare() (and, when training, until finish_backward()). With training, what
  // backward needs of the precomputation is kept.
  virtual void prepare(const tensor::Tensor& keys, const std::vector<int64_t>& lengths,
                       bool training) = 0;
  // query [Tq, N, Q] whose row t is target position step + t → context [Tq, N, C]
  // (overwritten) and, if weights is not null, the attention weights [N, Tq, S]. tape: null for
  // inference. A stateful mechanism must see its steps in order, one at a time.
  virtual void forward(const tensor::Tensor& query, int64_t step, tensor::Tensor& context,
                       tensor::Tensor* weights, AttentionTape* tape) = 0;
  // Backward of the forward recorded in tape: d_context [Tq, N, C] → d_query [Tq, N, Q]
  // (overwritten). Key and parameter gradients accumulate.
  virtual void backward(AttentionTape& tape, const tensor::Tensor& d_context,
                        tensor::Tensor& d_query) = 0;
  // Adds the gradient w.r.t. the keys of every backward() since prepare() to d_keys [S, N, K]
  // (including the path through the precomputation) and finishes the parameter gradients.
  virtual void finish_backward(tensor::Tensor& d_keys) = 0;

  // Beam search: the prepared state (keys, precomputation, lengths) becomes rows[i] of the old
  // one for each new row i (rows may repeat or shrink the batch). Inference only.
  virtual void select(const std::vector<int64_t>& rows) = 0;

  // The parameters were updated in place (optimizer step): drop packed copies.
  virtual void weights_changed() = 0;

  // A mechanism's own training loss term (coverage loss), summed over the forwards since
  // prepare(); 0 for most. The model adds loss_scale · auxiliary_loss() to the objective (not to
  // the perplexity) and calls set_loss_scale() before the first backward() so the term's
  // gradient is scaled the same way.
  virtual double auxiliary_loss() const { return 0; }
  virtual void set_loss_scale(float) {}
  // Teacher forcing, after prepare(): each sentence's target length. Steps at or past it are
  // padding of the batch, which a loss term must leave out (no loss, no gradient). Without a
  // call every step counts (search, tests).
  virtual void set_target_lengths(const std::vector<int64_t>& /*lengths*/) {}
};

}  // namespace heed::attention
