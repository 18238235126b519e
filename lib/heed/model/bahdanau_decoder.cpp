// Bahdanau et al. 2015 (the AllenNLP 0.9 simple_seq2seq arrangement): the attention reads the
// previous top state s_{t−1}, the context joins the embedding as the RNN input, and the new top
// state is the output. It always steps: each step's query is the previous step's result.
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
      : Decoder(config, attention, precision, store, attention.context_size()),
        embed_(config.embed),
        hidden_(config.hidden),
        context_(attention.context_size()) {}

 protected:
  void run_forward(const Tensor& embedded, Tensor& out) override {
    const int64_t t = embedded.dim(0), n = embedded.dim(1);
    xin_.resize(Shape{t, n, embed_ + context_});
    ctx_.resize(Shape{t, n, context_});
    for (int64_t step = 0; step < t; ++step) {
      Tensor x0 = xin_.slice(step, step + 1);
      tensor::copy_columns(embedded.slice(step, step + 1), x0, 0);
      const Tensor s = stack().state_before(step);
      const Tensor q = s.view(Shape{1, n, hidden_});
      Tensor ctx = ctx_.slice(step, step + 1);
      attend(size_t(step), q, step, ctx);
      if (context_ > 0) tensor::copy_columns(ctx, x0, embed_);
      stack().run(size_t(step), step, step + 1, x0);
    }
    out.resize(Shape{t, n, hidden_});
    tensor::copy(stack().top(0, t), out);
  }

  void run_backward(Tensor& d_out, Tensor& d_embedded) override {
    const int64_t t = d_out.dim(0), n = d_out.dim(1);
    for (int64_t step = t; step-- > 0;) {
      const Tensor d_top = d_out.slice(step, step + 1);
      dx0_.resize(Shape{1, n, embed_ + context_});
      stack().backward(size_t(step), d_top, dx0_);
      Tensor d_emb = d_embedded.slice(step, step + 1);
      tensor::take_columns(dx0_, 0, d_emb);
      d_ctx_.resize(Shape{1, n, context_});
      if (context_ > 0) tensor::take_columns(dx0_, embed_, d_ctx_);
      d_q_.resize(Shape{1, n, hidden_});
      attend_backward(size_t(step), step, d_ctx_, d_q_);
      stack().add_to_top_state_grad(d_q_.view(Shape{n, hidden_}));
    }
  }

  void run_step(const Tensor& emb, Tensor& out, Tensor* weights) override {
    const int64_t r = emb.dim(1);
    x_step_.resize(Shape{1, r, embed_ + context_});
    tensor::copy_columns(emb, x_step_, 0);
    ctx_step_.resize(Shape{1, r, context_});
    attend_step(stack().top_state().view(Shape{1, r, hidden_}), ctx_step_, weights);
    if (context_ > 0) tensor::copy_columns(ctx_step_, x_step_, embed_);
    stack().step(x_step_);
    tensor::copy(stack().top_state(), out);
  }

 private:
  const int64_t embed_, hidden_, context_;
  // Teacher forcing.
  Tensor xin_, ctx_, dx0_, d_ctx_, d_q_;
  // Search.
  Tensor x_step_, ctx_step_;
};

}  // namespace

std::unique_ptr<Decoder> Decoder::make_bahdanau(const ModelConfig& config,
                                                const attention::ResolvedAttention& attention,
                                                onednn::Precision precision,
                                                layers::ParameterStore& store) {
  return std::make_unique<BahdanauDecoder>(config, attention, precision, store);
}

}  // namespace heed::model
