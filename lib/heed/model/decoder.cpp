#include "heed/model/decoder.h"

#include <algorithm>

#include "heed/common/check.h"
#include "heed/common/profile.h"
#include "heed/layers/embedding.h"
#include "heed/tensor/tensor_ops.h"

namespace heed::model {

using tensor::Shape;
using tensor::Tensor;

std::unique_ptr<Decoder> Decoder::make(const ModelConfig& config,
                                       const attention::ResolvedAttention& attention,
                                       onednn::Precision precision, layers::ParameterStore& store) {
  std::unique_ptr<Decoder> decoder;
  switch (config.decoder) {
    case DecoderType::kLuong:
      decoder = make_luong(config, attention, precision, store);
      break;
    case DecoderType::kBahdanau:
      decoder = make_bahdanau(config, attention, precision, store);
      break;
    case DecoderType::kConcat:
      decoder = make_concat(config, attention, precision, store);
      break;
  }
  // Built here rather than in the constructor: its parameters come after the arrangement's own,
  // where every model file (and the initialiser's draws) have them.
  decoder->bridge_ = make_bridge(config, precision, store);
  return decoder;
}

Decoder::Decoder(const ModelConfig& config, const attention::ResolvedAttention& attention,
                 onednn::Precision precision, layers::ParameterStore& store, int64_t input_extra)
    : output_size_(config.output_size(attention)),
      embedding_(
          &store.add("decoder/embedding/weight", Shape{config.tgt_vocab_size, config.embed})),
      stack_(config, config.embed + input_extra, precision, store),
      attention_(attention.make(store, "decoder/attention/", precision)),
      word_dropout_(config.dropout_trg, config.embed),
      dropout_embed_(config.dropout),
      dropout_out_(config.dropout) {
  HEED_CHECK(attention_->context_size() == attention.context_size(), "attention context width");
}

Decoder::~Decoder() = default;

void Decoder::weights_changed() {
  stack_.weights_changed();
  attention_->weights_changed();
  bridge_->weights_changed();
  arrangement_weights_changed();
}

void Decoder::attend(size_t chunk, const Tensor& q, int64_t t0, Tensor& ctx) {
  profile::Scope phase(profile::Phase::kAttention);
  const int64_t tc = q.dim(0), n = n_, s = s_;
  attention_->forward(q, t0, ctx, keep_attention_ ? &step_weights_ : nullptr,
                      training_ ? &attention_tapes_[chunk] : nullptr);
  if (!keep_attention_) return;
  // [N, Tc, S] → rows t0 … t0 + Tc of [N, T, S]
  for (int64_t b = 0; b < n; ++b) {
    std::copy_n(step_weights_.data() + b * tc * s, tc * s, weights_.data() + (b * t_ + t0) * s);
  }
}

void Decoder::attend_backward(size_t chunk, int64_t t0, const Tensor& d_ctx, Tensor& d_q) {
  profile::Scope phase(profile::Phase::kAttention);
  attention::AttentionTape& tape = attention_tapes_[chunk];
  tape.d_weights = nullptr;
  if (d_weights_) {
    // Rows t0 … t0 + tc of [N, T, S] → [N, Tc, S]
    const int64_t tc = d_ctx.dim(0);
    d_weights_chunk_.resize(Shape{n_, tc, s_});
    for (int64_t b = 0; b < n_; ++b) {
      std::copy_n(d_weights_->data() + (b * t_ + t0) * s_, tc * s_,
                  d_weights_chunk_.data() + b * tc * s_);
    }
    tape.d_weights = &d_weights_chunk_;
  }
  attention_->backward(tape, d_ctx, d_q);
  tape.d_weights = nullptr;
}

void Decoder::attend_step(const Tensor& q, Tensor& ctx, Tensor* weights) {
  profile::Scope phase(profile::Phase::kAttention);
  attention_->forward(q, search_step_, ctx, weights, nullptr);
}

const Tensor& Decoder::forward(const Tensor& keys, const std::vector<int64_t>& src_lengths,
                               const Tensor& finals, const int32_t* tgt_in,
                               const std::vector<int64_t>& tgt_lengths, int64_t t, bool training,
                               Rng* dropout_rng, bool keep_attention) {
  const int64_t n = keys.dim(1), s = keys.dim(0);
  training_ = training;
  keep_attention_ = keep_attention;
  tgt_in_ = tgt_in;
  tgt_lengths_ = tgt_lengths;
  n_ = n;
  t_ = t;
  s_ = s;
  keys_ = &keys;
  finals_ = &finals;
  bridge_->forward(keys, src_lengths, finals, bridge_out_);
  const size_t chunks = size_t(fast_path() ? 1 : t);
  stack_.start(t, n, bridge_out_, chunks, training);
  if (training && attention_tapes_.size() < chunks) attention_tapes_.resize(chunks);
  layers::embedding_forward(embedding_->value, tgt_in, n, t, embedded_);
  word_dropout_.forward(embedded_, dropout_rng);
  dropout_embed_.forward(embedded_, dropout_rng);
  {
    profile::Scope phase(profile::Phase::kAttention);
    attention_->prepare(keys, src_lengths, training);
    attention_->set_target_lengths(tgt_lengths);
  }
  if (keep_attention) {
    weights_.resize(Shape{n, t, s});
    weights_.zero();
  }
  run_forward(embedded_, out_);
  dropout_out_.forward(out_, dropout_rng);
  return out_;
}

void Decoder::backward(const Tensor& d_out, Tensor& d_keys, Tensor& d_finals,
                       const Tensor* d_weights) {
  HEED_CHECK(!d_weights || d_weights->shape() == Shape({n_, t_, s_}),
             "decoder: the weights' gradient must be [N, T, S]");
  d_weights_ = d_weights;
  d_out_.resize(d_out.shape());
  tensor::copy(d_out, d_out_);
  dropout_out_.backward(d_out_);
  stack_.start_backward();
  d_emb_.resize(embedded_.shape());
  run_backward(d_out_, d_emb_);
  d_keys.resize(keys_->shape());
  d_keys.zero();
  {
    profile::Scope phase(profile::Phase::kAttention);
    attention_->finish_backward(d_keys);
  }
  dropout_embed_.backward(d_emb_);
  word_dropout_.backward(d_emb_);
  layers::embedding_backward(d_emb_, tgt_in_, tgt_lengths_.data(), n_, t_, embedding_->grad);
  d_finals.resize(finals_->shape());
  d_finals.zero();
  bridge_->backward(stack_.initial_grad(), d_keys, d_finals);
  stack_.flush_grads();
  d_weights_ = nullptr;
}

void Decoder::begin(const Tensor& keys, const std::vector<int64_t>& src_lengths,
                    const Tensor& finals) {
  rows_ = keys.dim(1);
  search_step_ = 0;
  search_source_length_ = keys.dim(0);
  bridge_->forward(keys, src_lengths, finals, bridge_out_);
  stack_.start_search(bridge_out_);
  attention_->prepare(keys, src_lengths, false);
  begin_search(rows_);
}

void Decoder::select(const std::vector<int64_t>& rows) {
  // Greedy search keeps every row in place until a sentence ends: nothing to gather.
  bool identity = static_cast<int64_t>(rows.size()) == rows_;
  for (size_t i = 0; identity && i < rows.size(); ++i)
    identity = rows[i] == static_cast<int64_t>(i);
  if (identity) return;
  stack_.select(rows);
  attention_->select(rows);
  select_search(rows);
  rows_ = static_cast<int64_t>(rows.size());
}

void Decoder::step(const int32_t* tokens, Tensor& out, Tensor* weights) {
  layers::embedding_forward(embedding_->value, tokens, rows_, 1, emb_step_);  // [1, R, E]
  out.resize(Shape{rows_, output_size_});
  if (weights) weights->resize(Shape{rows_, 1, search_source_length_});
  run_step(emb_step_, out, weights);
  ++search_step_;
}

}  // namespace heed::model
