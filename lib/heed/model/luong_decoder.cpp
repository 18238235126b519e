// Luong et al. 2015: the attention reads the current top state h_t and the attentional vector
// h̃_t = tanh(W_c [c_t; h_t]) is the output (and, with input feeding, part of the next input).
#include <utility>

#include "heed/common/profile.h"
#include "heed/model/decoder.h"
#include "heed/onednn/linear.h"
#include "heed/onednn/memory.h"
#include "heed/tensor/tensor_ops.h"

namespace heed::model {
namespace {

using tensor::Shape;
using tensor::Tensor;

class LuongDecoder : public Decoder {
 public:
  LuongDecoder(const ModelConfig& config, const attention::ResolvedAttention& attention,
               onednn::Precision precision, layers::ParameterStore& store)
      : Decoder(config, attention, precision, store, config.input_feeding ? config.hidden : 0),
        input_feeding_(config.input_feeding),
        stateful_attention_(attention.traits().stateful),
        embed_(config.embed),
        hidden_(config.hidden),
        context_(attention.context_size()),
        attn_out_weight_(&store.add("decoder/attn_out/weight", Shape{hidden_, context_ + hidden_})),
        attn_out_(context_ + hidden_, hidden_, precision) {
    attn_out_.set_weights(attn_out_weight_->value, nullptr);
  }

  // Nothing depends on the previous output without input feeding, unless the attention keeps
  // state from step to step.
  bool fast_path() const override {
    return !input_feeding_ && !stateful_attention_ && !force_stepping();
  }

 protected:
  void arrangement_weights_changed() override { attn_out_.weights_changed(); }

  void run_forward(const Tensor& embedded, Tensor& out) override {
    const int64_t t = embedded.dim(0), n = embedded.dim(1);
    const bool whole = fast_path();
    const int64_t chunk = whole ? t : 1;
    const int64_t in0 = embed_ + (input_feeding_ ? hidden_ : 0);
    ctx_.resize(Shape{t, n, context_});
    concat_.resize(Shape{t, n, context_ + hidden_});
    ht_.resize(Shape{t, n, hidden_});
    if (!whole) xin_.resize(Shape{t, n, in0});
    for (int64_t t0 = 0, ci = 0; t0 < t; t0 += chunk, ++ci) {
      const int64_t t1 = t0 + chunk;
      Tensor x0;
      if (whole) {
        x0 = embedded.view(embedded.shape());
      } else {
        x0 = xin_.slice(t0, t1);
        tensor::copy_columns(embedded.slice(t0, t1), x0, 0);
        if (input_feeding_) {
          if (t0 == 0) {
            const Tensor feed(Shape{1, n, hidden_});
            tensor::copy_columns(feed, x0, embed_);
          } else {
            tensor::copy_columns(ht_.slice(t0 - 1, t0), x0, embed_);
          }
        }
      }
      stack().run(size_t(ci), t0, t1, x0);
      const Tensor q = stack().top(t0, t1);
      Tensor concat = concat_.slice(t0, t1);
      Tensor ctx = ctx_.slice(t0, t1);
      attend(size_t(ci), q, t0, ctx);
      // The attentional layer h̃ = tanh(W_c [c; h]) counts as attention.
      profile::Scope phase(profile::Phase::kAttention);
      if (context_ > 0) tensor::copy_columns(ctx, concat, 0);
      tensor::copy_columns(q, concat, context_);
      Tensor ht = ht_.slice(t0, t1);
      attn_out_.forward(concat, ht, onednn::Activation::kTanh);
    }
    chunks_ = size_t((t + chunk - 1) / chunk);
    out.resize(ht_.shape());
    tensor::copy(ht_, out);
  }

  void run_backward(Tensor& d_out, Tensor& d_embedded) override {
    const int64_t t = d_out.dim(0), n = d_out.dim(1);
    const int64_t chunk = t / int64_t(chunks_);
    const int64_t in0 = embed_ + (input_feeding_ ? hidden_ : 0);
    d_feed_.resize(Shape{1, n, hidden_});
    // Gradients at the attentional layer's pre-activation, every step, in the type its
    // products take.
    const bool bf16 = attn_out_.precision() == onednn::Precision::kBF16;
    d_pre_all_.resize(Shape{t, n, hidden_}, bf16 ? tensor::DType::kBF16 : tensor::DType::kF32);
    for (size_t ci = chunks_; ci-- > 0;) {
      const int64_t t0 = int64_t(ci) * chunk, t1 = t0 + chunk, tc = chunk;
      Tensor d_ht = d_out.slice(t0, t1);
      if (input_feeding_ && t1 < t) tensor::add(d_ht, d_feed_, d_ht);
      {
        profile::Scope phase(profile::Phase::kAttention);
        // The step's input gradient now; the weight gradient of all steps at once below.
        Tensor d_pre = d_pre_all_.slice(t0, t1);
        if (bf16) {
          d_pre_.resize(Shape{tc, n, hidden_});
          tensor::tanh_backward(ht_.slice(t0, t1), d_ht, d_pre_);
          onednn::convert(d_pre_, d_pre);
        } else {
          tensor::tanh_backward(ht_.slice(t0, t1), d_ht, d_pre);
        }
        d_concat_.resize(Shape{tc, n, context_ + hidden_});
        attn_out_.backward_data(d_pre, d_concat_);
        d_top_.resize(Shape{tc, n, hidden_});
        tensor::take_columns(d_concat_, context_, d_top_);
        d_ctx_.resize(Shape{tc, n, context_});
        if (context_ > 0) tensor::take_columns(d_concat_, 0, d_ctx_);
      }
      d_q_.resize(Shape{tc, n, hidden_});
      attend_backward(ci, t0, d_ctx_, d_q_);
      tensor::add(d_top_, d_q_, d_top_);
      dx0_.resize(Shape{tc, n, in0});
      stack().backward(ci, d_top_, dx0_);
      Tensor d_emb = d_embedded.slice(t0, t1);
      tensor::take_columns(dx0_, 0, d_emb);
      if (input_feeding_) tensor::take_columns(dx0_, embed_, d_feed_);
    }
    // One product over every step instead of one per step: W_c's gradient does not feed
    // back into the recurrence.
    profile::Scope phase(profile::Phase::kAttention);
    attn_out_.backward_weights(concat_, d_pre_all_, attn_out_weight_->grad, nullptr);
  }

  void begin_search(int64_t rows) override {
    if (input_feeding_) {
      feed_.resize(Shape{rows, hidden_});
      feed_.zero();
    }
  }

  void select_search(const std::vector<int64_t>& rows) override {
    if (!input_feeding_) return;
    tensor::gather_rows(feed_, rows, scratch_);
    std::swap(feed_, scratch_);
  }

  void run_step(const Tensor& emb, Tensor& out, Tensor* weights) override {
    const int64_t r = emb.dim(1);
    Tensor x0;
    if (input_feeding_) {
      x_step_.resize(Shape{1, r, embed_ + hidden_});
      tensor::copy_columns(emb, x_step_, 0);
      tensor::copy_columns(feed_, x_step_, embed_);
      x0 = x_step_.view(x_step_.shape());
    } else {
      x0 = emb.view(emb.shape());
    }
    stack().step(x0);
    const Tensor& top = stack().top_state();
    const Tensor q = top.view(Shape{1, r, hidden_});
    profile::Scope phase(profile::Phase::kAttention);  // the mechanism and the attentional layer
    concat_step_.resize(Shape{1, r, context_ + hidden_});
    ctx_step_.resize(Shape{1, r, context_});
    attend_step(q, ctx_step_, weights);
    if (context_ > 0) tensor::copy_columns(ctx_step_, concat_step_, 0);
    tensor::copy_columns(q, concat_step_, context_);
    Tensor o = out.view(Shape{1, r, hidden_});
    attn_out_.forward(concat_step_, o, onednn::Activation::kTanh);
    if (input_feeding_) tensor::copy(out, feed_);
  }

 private:
  const bool input_feeding_;
  const bool stateful_attention_;
  const int64_t embed_, hidden_, context_;
  layers::Parameter* attn_out_weight_;
  onednn::Linear attn_out_;
  size_t chunks_ = 0;  // of the last forward
  // Teacher forcing.
  Tensor xin_, ctx_, concat_, ht_;
  Tensor d_feed_, d_pre_, d_pre_all_, d_concat_, d_top_, d_ctx_, d_q_, dx0_;
  // Search.
  Tensor feed_, scratch_, x_step_, ctx_step_, concat_step_;
};

}  // namespace

std::unique_ptr<Decoder> Decoder::make_luong(const ModelConfig& config,
                                             const attention::ResolvedAttention& attention,
                                             onednn::Precision precision,
                                             layers::ParameterStore& store) {
  return std::make_unique<LuongDecoder>(config, attention, precision, store);
}

}  // namespace heed::model
