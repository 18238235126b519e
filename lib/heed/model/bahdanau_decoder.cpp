// Bahdanau et al. 2015 (the AllenNLP 0.9 simple_seq2seq arrangement): the attention reads the
// previous top state s_{t−1}, the context joins the embedding as the RNN input, and the new top
// state is the output. It always steps: each step's query is the previous step's result.
#include "heed/common/check.h"
#include "heed/common/profile.h"
#include "heed/model/decoder.h"
#include "heed/tensor/tensor_ops.h"

namespace heed::model {
namespace {

using tensor::Shape;
using tensor::Tensor;

class BahdanauDecoder : public Decoder {
 public:
  BahdanauDecoder(const ModelConfig& config, const attention::ResolvedAttention& attention,
                  onednn::Precision precision, layers::ParameterStore& store)
      : Decoder(config, attention, precision, store, attention.context_size()) {
    bridge_ = make_bridge(config, precision, store);
  }

 protected:
  void run_forward(bool training, bool keep_attention) override {
    const int64_t t = t_, n = n_;
    xin_.resize(Shape{t, n, embed_ + context_});
    for (int64_t step = 0; step < t; ++step) {
      Tensor x0 = xin_.slice(step, step + 1);
      tensor::copy_columns(embedded_.slice(step, step + 1), x0, 0);
      const Tensor s = stack_.state_before(step);
      const Tensor q = s.view(Shape{1, n, hidden_});
      Tensor ctx = ctx_.slice(step, step + 1);
      attend(q, step, ctx, training ? &attention_tapes_[size_t(step)] : nullptr, keep_attention);
      if (context_ > 0) tensor::copy_columns(ctx, x0, embed_);
      stack_.run(size_t(step), step, step + 1, x0);
    }
    out_.resize(Shape{t, n, hidden_});
    tensor::copy(stack_.top(0, t), out_);
  }

  void run_backward() override {
    const int64_t n = n_;
    const int64_t in0 = embed_ + context_;
    for (int64_t step = t_; step-- > 0;) {
      const Tensor d_top = d_out_.slice(step, step + 1);
      dx0_.resize(Shape{1, n, in0});
      stack_.backward(size_t(step), d_top, dx0_);
      Tensor d_emb = d_emb_.slice(step, step + 1);
      tensor::take_columns(dx0_, 0, d_emb);
      d_ctx_.resize(Shape{1, n, context_});
      if (context_ > 0) tensor::take_columns(dx0_, embed_, d_ctx_);
      d_q_.resize(Shape{1, n, hidden_});
      attention_backward(attention_tapes_[size_t(step)], step, 1);
      stack_.add_to_top_state_grad(d_q_.view(Shape{n, hidden_}));
    }
  }

  void run_step(const Tensor& emb, Tensor& out, Tensor* weights) override {
    const int64_t r = rows_;
    x_step_.resize(Shape{1, r, embed_ + context_});
    tensor::copy_columns(emb, x_step_, 0);
    ctx_step_.resize(Shape{1, r, context_});
    {
      profile::Scope phase(profile::Phase::kAttention);
      attention_->forward(stack_.top_state().view(Shape{1, r, hidden_}), search_step_, ctx_step_,
                          weights, nullptr);
    }
    if (context_ > 0) tensor::copy_columns(ctx_step_, x_step_, embed_);
    stack_.step(x_step_);
    tensor::copy(stack_.top_state(), out);
  }

 private:
  Tensor xin_, x_step_;
};

}  // namespace

std::unique_ptr<Decoder> make_bahdanau_decoder(const ModelConfig& config,
                                               const attention::ResolvedAttention& attention,
                                               onednn::Precision precision,
                                               layers::ParameterStore& store) {
  return std::make_unique<BahdanauDecoder>(config, attention, precision, store);
}

}  // namespace heed::model
