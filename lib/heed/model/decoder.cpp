#include "heed/model/decoder.h"

#include <cstring>

#include "heed/attention/registry.h"
#include "heed/common/check.h"
#include "heed/layers/embedding.h"
#include "heed/model/encoder.h"
#include "heed/tensor/tensor_ops.h"

namespace heed::model {

using tensor::Shape;
using tensor::Tensor;

namespace {

// A [1, N, C] view of a [N, C] tensor (one time step).
Tensor as_step(const Tensor& t) {
  return t.view(Shape{1, t.dim(0), t.dim(1)});
}

void gather_rows(const Tensor& src, const std::vector<int64_t>& rows, Tensor& dst) {
  const int64_t width = src.dim(1);
  dst.resize(Shape{static_cast<int64_t>(rows.size()), width});
  for (size_t i = 0; i < rows.size(); ++i) {
    std::memcpy(dst.data() + static_cast<int64_t>(i) * width, src.data() + rows[i] * width,
                sizeof(float) * size_t(width));
  }
}

}  // namespace

Decoder::Decoder(const ModelConfig& config, onednn::Precision precision,
                 layers::ParameterStore& store)
    : luong_(config.decoder == DecoderType::kLuong),
      input_feeding_(config.decoder == DecoderType::kLuong && config.input_feeding),
      lstm_(config.cell == CellType::kLstm),
      layers_count_(config.decoder_layers),
      embed_(config.embed),
      hidden_(config.hidden),
      store_(&store),
      dropout_embed_(config.dropout),
      dropout_out_(config.dropout) {
  embedding_ = &store.add("decoder/embedding/weight", Shape{config.tgt_vocab_size, config.embed});
  // The attention is built first so that its context width is known for the RNN input.
  attention::AttentionConfig ac;
  ac.query_size = hidden_;
  ac.key_size = config.key_size();
  ac.attention_dim = config.attention_dim;
  ac.precision = precision;
  // Parameters are added in a fixed order: embedding, rnn, attention, attn_out, output, bridge.
  // The RNN input width needs the context width, which the mechanism knows; ask a probe.
  {
    layers::ParameterStore probe;
    context_ = attention::make_attention(config.attention, ac, probe, "")->context_size();
  }
  const int64_t input0 = embed_ + (input_feeding_ ? hidden_ : 0) + (luong_ ? 0 : context_);
  const onednn::CellKind cell = cell_kind(config.cell);
  for (int l = 0; l < layers_count_; ++l) {
    onednn::RnnConfig rc;
    rc.cell = cell;
    rc.input_size = l == 0 ? input0 : hidden_;
    rc.hidden_size = hidden_;
    rc.precision = precision;
    const std::string prefix = "decoder/rnn_" + std::to_string(l) + "/";
    add_rnn_parameters(store, prefix, cell, rc.input_size, hidden_);
    rnns_.emplace_back(rc);
    rnns_.back().set_weights(rnn_weights(store, prefix));
  }
  attention_ = attention::make_attention(config.attention, ac, store, "decoder/attention/");
  if (luong_) {
    layers::Parameter& w = store.add("decoder/attn_out/weight", Shape{hidden_, context_ + hidden_});
    attn_out_ = std::make_unique<onednn::Linear>(context_ + hidden_, hidden_, precision);
    attn_out_->set_weights(w.value, nullptr);
  }
  if (config.bridge == BridgeType::kDense) {
    const int64_t out = int64_t(layers_count_) * hidden_;
    layers::Parameter& w = store.add("bridge/weight", Shape{out, config.key_size()});
    layers::Parameter& b = store.add("bridge/bias", Shape{out});
    bridge_ = std::make_unique<onednn::Linear>(config.key_size(), out, precision);
    bridge_->set_weights(w.value, &b.value);
  }
}

Decoder::~Decoder() = default;

bool Decoder::fast_path() const {
  return luong_ && !input_feeding_ && !force_stepping_;
}

void Decoder::weights_changed() {
  for (auto& rnn : rnns_) rnn.weights_changed();
  attention_->weights_changed();
  if (attn_out_) attn_out_->weights_changed();
  if (bridge_) bridge_->weights_changed();
}

void Decoder::initial_states(const Tensor& finals, int64_t n, std::vector<Tensor>& h,
                             std::vector<Tensor>& c) {
  if (bridge_) {
    bridge_out_.resize(Shape{n, int64_t(layers_count_) * hidden_});
    bridge_->forward(finals, bridge_out_, onednn::Activation::kTanh);
  }
  for (int l = 0; l < layers_count_; ++l) {
    if (bridge_) {
      take_columns(bridge_out_, l * hidden_, h[size_t(l)]);
    } else {
      h[size_t(l)].zero();
    }
    if (lstm_) c[size_t(l)].zero();
  }
}

void Decoder::run_layers(size_t chunk, int64_t t0, int64_t t1, const Tensor& x0, bool training) {
  for (int l = 0; l < layers_count_; ++l) {
    const size_t li = size_t(l);
    const Tensor x = l == 0 ? x0.view(x0.shape()) : hs_[li - 1].slice(t0 + 1, t1 + 1);
    const Tensor h0 = hs_[li].select(t0);
    const Tensor c0 = lstm_ ? cs_[li].select(t0) : Tensor();
    Tensor y = hs_[li].slice(t0 + 1, t1 + 1);
    Tensor c_last = lstm_ ? cs_[li].select(t1) : Tensor();
    const onednn::RnnInputs in{&x, &h0, lstm_ ? &c0 : nullptr};
    const onednn::RnnOutputs out{&y, nullptr, lstm_ ? &c_last : nullptr};
    if (training) {
      rnns_[li].forward_training(in, out, tapes_[chunk][li]);
    } else {
      rnns_[li].forward_inference(in, out);
    }
  }
}

const Tensor& Decoder::forward(const Tensor& keys, const std::vector<int64_t>& src_lengths,
                               const Tensor& finals, const int32_t* tgt_in,
                               const std::vector<int64_t>& tgt_lengths, int64_t t, bool training,
                               Rng* dropout_rng, bool keep_attention) {
  const int64_t n = keys.dim(1), s = keys.dim(0);
  tgt_in_ = tgt_in;
  tgt_lengths_ = tgt_lengths;
  n_ = n;
  t_ = t;
  s_ = s;
  finals_ = &finals;
  const size_t layers = size_t(layers_count_);
  hs_.resize(layers);
  cs_.resize(layers);
  for (size_t l = 0; l < layers; ++l) {
    hs_[l].resize(Shape{t + 1, n, hidden_});
    if (lstm_) cs_[l].resize(Shape{t + 1, n, hidden_});
  }
  {
    std::vector<Tensor> h0(layers), c0(layers);
    for (size_t l = 0; l < layers; ++l) {
      h0[l] = hs_[l].select(0);
      if (lstm_) c0[l] = cs_[l].select(0);
    }
    initial_states(finals, n, h0, c0);
  }
  layers::embedding_forward(embedding_->value, tgt_in, n, t, embedded_);
  dropout_embed_.forward(embedded_, dropout_rng);
  attention_->prepare(keys, src_lengths, training);

  const bool whole = fast_path();
  const int64_t chunk = whole ? t : 1;
  chunks_ = size_t(t / chunk);
  if (training) {
    if (tapes_.size() < chunks_) tapes_.resize(chunks_);
    for (size_t i = 0; i < chunks_; ++i) tapes_[i].resize(layers);
    if (attention_tapes_.size() < chunks_) attention_tapes_.resize(chunks_);
  } else if (tapes_.empty()) {
    tapes_.resize(1);
    tapes_[0].resize(layers);
  }
  if (context_ > 0) ctx_.resize(Shape{t, n, context_});
  if (keep_attention) weights_.resize(Shape{n, t, s});
  Tensor* step_weights = keep_attention ? &step_weights_ : nullptr;
  auto keep_weights = [&](int64_t t0, int64_t t1) {
    if (!keep_attention) return;
    if (context_ == 0) {
      weights_.zero();
      return;
    }
    // [N, Tc, S] → rows t0..t1 of [N, T, S]
    for (int64_t b = 0; b < n; ++b) {
      std::memcpy(weights_.data() + (b * t + t0) * s, step_weights_.data() + b * (t1 - t0) * s,
                  sizeof(float) * size_t((t1 - t0) * s));
    }
  };

  if (luong_) {
    const int64_t in0 = embed_ + (input_feeding_ ? hidden_ : 0);
    concat_.resize(Shape{t, n, context_ + hidden_});
    ht_.resize(Shape{t, n, hidden_});
    if (!whole) xin_.resize(Shape{t, n, in0});
    for (size_t ci = 0; ci < chunks_; ++ci) {
      const int64_t t0 = int64_t(ci) * chunk, t1 = t0 + chunk;
      Tensor x0;
      if (whole) {
        x0 = embedded_.view(embedded_.shape());
      } else {
        x0 = xin_.slice(t0, t1);
        copy_columns(embedded_.slice(t0, t1), x0, 0);
        if (input_feeding_) {
          if (t0 == 0) {
            Tensor feed(Shape{1, n, hidden_});
            copy_columns(feed, x0, embed_);
          } else {
            copy_columns(ht_.slice(t0 - 1, t0), x0, embed_);
          }
        }
      }
      run_layers(training ? ci : 0, t0, t1, x0, training);
      const Tensor q = hs_[layers - 1].slice(t0 + 1, t1 + 1);
      Tensor concat = concat_.slice(t0, t1);
      if (keep_attention) step_weights_.resize(Shape{n, chunk, s});
      if (context_ > 0) {
        Tensor ctx = ctx_.slice(t0, t1);
        attention_->forward(q, ctx, step_weights, training ? &attention_tapes_[ci] : nullptr);
        copy_columns(ctx, concat, 0);
      }
      keep_weights(t0, t1);
      copy_columns(q, concat, context_);
      Tensor ht = ht_.slice(t0, t1);
      attn_out_->forward(concat, ht, onednn::Activation::kTanh);
    }
    out_.resize(ht_.shape());
    tensor::copy(ht_, out_);
  } else {
    xin_.resize(Shape{t, n, embed_ + context_});
    for (int64_t step = 0; step < t; ++step) {
      Tensor x0 = xin_.slice(step, step + 1);
      copy_columns(embedded_.slice(step, step + 1), x0, 0);
      if (keep_attention) step_weights_.resize(Shape{n, 1, s});
      if (context_ > 0) {
        const Tensor q = as_step(hs_[layers - 1].select(step));
        Tensor ctx = ctx_.slice(step, step + 1);
        attention_->forward(q, ctx, step_weights,
                            training ? &attention_tapes_[size_t(step)] : nullptr);
        copy_columns(ctx, x0, embed_);
      }
      keep_weights(step, step + 1);
      run_layers(training ? size_t(step) : 0, step, step + 1, x0, training);
    }
    out_.resize(Shape{t, n, hidden_});
    tensor::copy(hs_[layers - 1].slice(1, t + 1), out_);
  }
  dropout_out_.forward(out_, dropout_rng);
  return out_;
}

void Decoder::backward_layers(size_t chunk, Tensor& d_top, Tensor& dx0) {
  const Tensor* dy = &d_top;
  for (size_t l = size_t(layers_count_); l-- > 0;) {
    Tensor* dx = l == 0 ? &dx0 : &d_mid_[l % 2];
    const int64_t input = l == 0 ? dx0.dim(2) : hidden_;
    dx->resize(Shape{d_top.dim(0), n_, input});
    const onednn::RnnOutputGrads grads_out{dy, &dh_[l], lstm_ ? &dc_[l] : nullptr};
    const onednn::RnnInputGrads grads_in{dx, &dh_tmp_[l], lstm_ ? &dc_tmp_[l] : nullptr};
    rnns_[l].backward(tapes_[chunk][l], grads_out, grads_in);
    std::swap(dh_[l], dh_tmp_[l]);
    if (lstm_) std::swap(dc_[l], dc_tmp_[l]);
    dy = dx;
  }
}

void Decoder::backward(const Tensor& d_out, Tensor& d_keys, Tensor& d_finals) {
  const int64_t n = n_, t = t_;
  const size_t layers = size_t(layers_count_);
  d_out_.resize(d_out.shape());
  tensor::copy(d_out, d_out_);
  dropout_out_.backward(d_out_);
  for (auto* v : {&dh_, &dc_, &dh_tmp_, &dc_tmp_}) v->resize(layers);
  d_mid_.resize(2);
  for (size_t l = 0; l < layers; ++l) {
    for (auto* v : {&dh_, &dc_, &dh_tmp_, &dc_tmp_}) (*v)[l].resize(Shape{n, hidden_});
    dh_[l].zero();
    dc_[l].zero();
  }
  d_emb_.resize(Shape{t, n, embed_});

  if (luong_) {
    const int64_t chunk = t / int64_t(chunks_);
    const int64_t in0 = embed_ + (input_feeding_ ? hidden_ : 0);
    d_feed_.resize(Shape{1, n, hidden_});
    for (size_t ci = chunks_; ci-- > 0;) {
      const int64_t t0 = int64_t(ci) * chunk, t1 = t0 + chunk, tc = chunk;
      Tensor d_ht = d_out_.slice(t0, t1);
      if (input_feeding_ && t1 < t) tensor::add(d_ht, d_feed_, d_ht);
      d_pre_.resize(Shape{tc, n, hidden_});
      tensor::tanh_backward(ht_.slice(t0, t1), d_ht, d_pre_);
      d_concat_.resize(Shape{tc, n, context_ + hidden_});
      attn_out_->backward(concat_.slice(t0, t1), d_pre_, &d_concat_,
                          store_->get("decoder/attn_out/weight").grad, nullptr);
      d_top_.resize(Shape{tc, n, hidden_});
      take_columns(d_concat_, context_, d_top_);
      if (context_ > 0) {
        d_ctx_.resize(Shape{tc, n, context_});
        take_columns(d_concat_, 0, d_ctx_);
        d_q_.resize(Shape{tc, n, hidden_});
        attention_->backward(attention_tapes_[ci], d_ctx_, d_q_);
        tensor::add(d_top_, d_q_, d_top_);
      }
      dx0_.resize(Shape{tc, n, in0});
      backward_layers(ci, d_top_, dx0_);
      Tensor d_emb = d_emb_.slice(t0, t1);
      take_columns(dx0_, 0, d_emb);
      if (input_feeding_) take_columns(dx0_, embed_, d_feed_);
    }
  } else {
    const int64_t in0 = embed_ + context_;
    for (int64_t step = t; step-- > 0;) {
      Tensor d_top = d_out_.slice(step, step + 1);
      dx0_.resize(Shape{1, n, in0});
      backward_layers(size_t(step), d_top, dx0_);
      Tensor d_emb = d_emb_.slice(step, step + 1);
      take_columns(dx0_, 0, d_emb);
      if (context_ > 0) {
        d_ctx_.resize(Shape{1, n, context_});
        take_columns(dx0_, embed_, d_ctx_);
        d_q_.resize(Shape{1, n, hidden_});
        attention_->backward(attention_tapes_[size_t(step)], d_ctx_, d_q_);
        Tensor dq = d_q_.view(Shape{n, hidden_});
        tensor::add(dh_[layers - 1], dq, dh_[layers - 1]);
      }
    }
  }

  d_keys.resize(Shape{s_, n, context_ > 0 ? context_ : hidden_});
  d_keys.zero();
  attention_->finish_backward(d_keys);
  dropout_embed_.backward(d_emb_);
  layers::embedding_backward(d_emb_, tgt_in_, tgt_lengths_.data(), n, t, embedding_->grad);

  if (bridge_) {
    d_bridge_.resize(Shape{n, int64_t(layers) * hidden_});
    for (size_t l = 0; l < layers; ++l) {
      Tensor h0 = hs_[l].select(0);
      tensor::tanh_backward(h0, dh_[l], dh_tmp_[l]);
      copy_columns(dh_tmp_[l], d_bridge_, int64_t(l) * hidden_);
    }
    d_finals.resize(finals_->shape());
    bridge_->backward(*finals_, d_bridge_, &d_finals, store_->get("bridge/weight").grad,
                      &store_->get("bridge/bias").grad);
  }
  for (size_t l = 0; l < layers; ++l) {
    rnns_[l].flush_grads(rnn_grads(*store_, "decoder/rnn_" + std::to_string(l) + "/"));
  }
}

void Decoder::begin(const Tensor& keys, const std::vector<int64_t>& src_lengths,
                    const Tensor& finals) {
  const int64_t n = keys.dim(1);
  rows_ = n;
  search_source_length_ = keys.dim(0);
  const size_t layers = size_t(layers_count_);
  for (auto* v : {&h_, &c_, &h_next_, &c_next_}) v->resize(layers);
  for (size_t l = 0; l < layers; ++l) {
    h_[l].resize(Shape{n, hidden_});
    if (lstm_) c_[l].resize(Shape{n, hidden_});
  }
  initial_states(finals, n, h_, c_);
  if (input_feeding_) {
    feed_.resize(Shape{n, hidden_});
    feed_.zero();
  }
  attention_->prepare(keys, src_lengths, false);
}

void Decoder::select(const std::vector<int64_t>& rows) {
  // Greedy search keeps every row in place until a sentence ends: nothing to gather.
  bool identity = static_cast<int64_t>(rows.size()) == rows_;
  for (size_t i = 0; identity && i < rows.size(); ++i)
    identity = rows[i] == static_cast<int64_t>(i);
  if (identity) return;
  for (size_t l = 0; l < h_.size(); ++l) {
    gather_rows(h_[l], rows, h_next_[l]);
    std::swap(h_[l], h_next_[l]);
    if (lstm_) {
      gather_rows(c_[l], rows, c_next_[l]);
      std::swap(c_[l], c_next_[l]);
    }
  }
  if (input_feeding_) {
    gather_rows(feed_, rows, scratch_);
    std::swap(feed_, scratch_);
  }
  attention_->select(rows);
  rows_ = static_cast<int64_t>(rows.size());
}

void Decoder::step(const int32_t* tokens, Tensor& out, Tensor* weights) {
  const int64_t r = rows_;
  const size_t layers = size_t(layers_count_);
  Tensor emb;
  layers::embedding_forward(embedding_->value, tokens, r, 1, emb);  // [1, R, E]
  out.resize(Shape{r, hidden_});
  if (weights) {
    weights->resize(Shape{r, 1, search_source_length_});
    if (context_ == 0) weights->zero();
  }
  auto run_stack = [&](const Tensor& x0) {
    for (size_t l = 0; l < layers; ++l) {
      const Tensor x = l == 0 ? x0.view(x0.shape()) : as_step(h_[l - 1]);
      h_next_[l].resize(Shape{r, hidden_});
      if (lstm_) c_next_[l].resize(Shape{r, hidden_});
      Tensor y = as_step(h_next_[l]);
      const onednn::RnnInputs in{&x, &h_[l], lstm_ ? &c_[l] : nullptr};
      const onednn::RnnOutputs o{&y, nullptr, lstm_ ? &c_next_[l] : nullptr};
      rnns_[l].forward_inference(in, o);
      std::swap(h_[l], h_next_[l]);
      if (lstm_) std::swap(c_[l], c_next_[l]);
    }
  };
  if (luong_) {
    Tensor x0;
    if (input_feeding_) {
      x_step_.resize(Shape{1, r, embed_ + hidden_});
      copy_columns(emb, x_step_, 0);
      copy_columns(feed_, x_step_, embed_);
      x0 = x_step_.view(x_step_.shape());
    } else {
      x0 = emb.view(emb.shape());
    }
    run_stack(x0);
    const Tensor q = as_step(h_[layers - 1]);
    concat_step_.resize(Shape{1, r, context_ + hidden_});
    if (context_ > 0) {
      ctx_step_.resize(Shape{1, r, context_});
      attention_->forward(q, ctx_step_, weights, nullptr);
      copy_columns(ctx_step_, concat_step_, 0);
    }
    copy_columns(q, concat_step_, context_);
    Tensor o = as_step(out);
    attn_out_->forward(concat_step_, o, onednn::Activation::kTanh);
    if (input_feeding_) tensor::copy(out, feed_);
  } else {
    x_step_.resize(Shape{1, r, embed_ + context_});
    copy_columns(emb, x_step_, 0);
    if (context_ > 0) {
      ctx_step_.resize(Shape{1, r, context_});
      attention_->forward(as_step(h_[layers - 1]), ctx_step_, weights, nullptr);
      copy_columns(ctx_step_, x_step_, embed_);
    }
    run_stack(x_step_);
    tensor::copy(h_[layers - 1], out);
  }
}

}  // namespace heed::model
