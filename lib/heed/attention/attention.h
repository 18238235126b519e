// Attention over encoder states, one interface for every mechanism (docs/attention.md).
//
// A mechanism scores a query q against each key h_s; the shared machinery masks padded source
// positions, takes the softmax and forms the context c = Σ_s a_s h_s. Per sentence batch:
//   prepare(keys, lengths)      once: the key-side precomputation (W_a h_s, U h_s + b)
//   forward(query) …            once per decoder step (Tq = 1) or once for all steps (Tq = T)
//   backward(tape, d_context) … in reverse order of the forwards, one tape each
//   finish_backward(d_keys)     once: gradients reaching the keys, through the values, the
//                               scores and the precomputation
// Parameter gradients accumulate into the ParameterStore's grad tensors.
//
// Layouts are time-major like the RNNs: keys [S, N, K], queries [Tq, N, Q], contexts [Tq, N, K].
// Attention weights are [N, Tq, S] (one row per query, padded positions exactly 0).
//
// A new mechanism is one file in lib/heed/attention/ that subclasses Attention and registers
// itself (docs/attention.md "Adding a mechanism").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "heed/layers/parameters.h"
#include "heed/onednn/precision.h"
#include "heed/tensor/tensor.h"

namespace heed::attention {

struct AttentionConfig {
  int64_t query_size = 0;     // Q: decoder state width
  int64_t key_size = 0;       // K: encoder output width
  int64_t attention_dim = 0;  // A: hidden width of additive attention (0 = query_size)
  onednn::Precision precision = onednn::Precision::kF32;
};

// What backward() needs from one forward(): owned by the caller (one per decoder step, reused
// across batches so that nothing is allocated once the largest batch has been seen).
struct AttentionTape {
  tensor::Tensor query;               // view of the caller's query (must stay unchanged)
  tensor::Tensor weights;             // [N, Tq, S] softmax output
  std::vector<tensor::Tensor> saved;  // mechanism-specific intermediates
};

class Attention {
 public:
  virtual ~Attention() = default;

  // Registry name ("general", …).
  virtual const std::string& name() const = 0;
  // Width of the context vector: key_size, or 0 for "none" (then forward writes nothing and
  // decoders leave the context out).
  virtual int64_t context_size() const = 0;

  // keys [S, N, K] time-major, lengths[n] in [1, S]. keys must stay alive and unchanged until
  // the next prepare() (and, when training, until finish_backward()). With training, what
  // backward needs of the precomputation is kept.
  virtual void prepare(const tensor::Tensor& keys, const std::vector<int64_t>& lengths,
                       bool training) = 0;
  // query [Tq, N, Q] → context [Tq, N, K] (overwritten; not touched when context_size() is 0)
  // and, if weights is not null, the attention weights [N, Tq, S]. tape: null for inference.
  virtual void forward(const tensor::Tensor& query, tensor::Tensor& context,
                       tensor::Tensor* weights, AttentionTape* tape) = 0;
  // Backward of the forward recorded in tape: d_context [Tq, N, K] → d_query [Tq, N, Q]
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
};

}  // namespace heed::attention
