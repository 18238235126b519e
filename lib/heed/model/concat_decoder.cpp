// The concat arrangement (issue 32): the attention reads the current top state h_t, as Luong's,
// but nothing follows it — no attentional layer tanh(W_c [c_t; h_t]), no input feeding: the
// output is [c_t; h_t] itself, which the output layer projects straight to the vocabulary.
// Nothing depends on the previous output, so under teacher forcing the RNN stack and the
// attention run over all steps at once unless the mechanism keeps state from step to step.
#include "heed/model/decoder.h"
#include "heed/tensor/tensor_ops.h"

namespace heed::model {
namespace {

using tensor::Shape;
using tensor::Tensor;

class ConcatDecoder : public Decoder {
 public:
  ConcatDecoder(const ModelConfig& config, const attention::ResolvedAttention& attention,
                onednn::Precision precision, layers::ParameterStore& store)
      : Decoder(config, attention, precision, store, /*input_extra=*/0),
        stateful_attention_(attention.traits().stateful),
        hidden_(config.hidden),
        context_(attention.context_size()) {}

  bool fast_path() const override { return !stateful_attention_ && !force_stepping(); }

 protected:
  void run_forward(const Tensor& embedded, Tensor& out) override {
    const int64_t t = embedded.dim(0), n = embedded.dim(1);
    const int64_t chunk = fast_path() ? t : 1;
    out.resize(Shape{t, n, context_ + hidden_});
    for (int64_t t0 = 0, ci = 0; t0 < t; t0 += chunk, ++ci) {
      const int64_t t1 = t0 + chunk;
      stack().run(size_t(ci), t0, t1, embedded.slice(t0, t1));
      const Tensor q = stack().top(t0, t1);
      attend(size_t(ci), q, t0, ctx_);
      Tensor o = out.slice(t0, t1);
      concatenate(ctx_, q, o);
    }
    chunks_ = size_t((t + chunk - 1) / chunk);
  }

  void run_backward(Tensor& d_out, Tensor& d_embedded) override {
    const int64_t t = d_out.dim(0), n = d_out.dim(1);
    const int64_t chunk = t / int64_t(chunks_);
    for (size_t ci = chunks_; ci-- > 0;) {
      const int64_t t0 = int64_t(ci) * chunk, t1 = t0 + chunk;
      const Tensor d_o = d_out.slice(t0, t1);
      d_top_.resize(Shape{chunk, n, hidden_});
      tensor::take_columns(d_o, context_, d_top_);
      d_ctx_.resize(Shape{chunk, n, context_});
      if (context_ > 0) tensor::take_columns(d_o, 0, d_ctx_);
      d_q_.resize(Shape{chunk, n, hidden_});
      attend_backward(ci, t0, d_ctx_, d_q_);
      tensor::add(d_top_, d_q_, d_top_);
      Tensor d_emb = d_embedded.slice(t0, t1);
      stack().backward(ci, d_top_, d_emb);
    }
  }

  void run_step(const Tensor& emb, Tensor& out, Tensor* weights) override {
    const int64_t r = emb.dim(1);
    stack().step(emb);
    const Tensor q = stack().top_state().view(Shape{1, r, hidden_});
    attend_step(q, ctx_step_, weights);
    Tensor o = out.view(Shape{1, r, context_ + hidden_});
    concatenate(ctx_step_, q, o);
  }

 private:
  // o [Tc, N, C + H] = [ctx; q].
  void concatenate(const Tensor& ctx, const Tensor& q, Tensor& o) const {
    if (context_ > 0) tensor::copy_columns(ctx, o, 0);
    tensor::copy_columns(q, o, context_);
  }

  const bool stateful_attention_;
  const int64_t hidden_, context_;
  size_t chunks_ = 0;  // of the last forward
  // Teacher forcing.
  Tensor ctx_, d_top_, d_ctx_, d_q_;
  // Search.
  Tensor ctx_step_;
};

}  // namespace

std::unique_ptr<Decoder> Decoder::make_concat(const ModelConfig& config,
                                              const attention::ResolvedAttention& attention,
                                              onednn::Precision precision,
                                              layers::ParameterStore& store) {
  return std::make_unique<ConcatDecoder>(config, attention, precision, store);
}

}  // namespace heed::model
