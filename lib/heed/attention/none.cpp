// "none": no attention at all — the decoder sees no context (the baseline every mechanism is
// measured against).
#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"

namespace heed::attention {
namespace {

class NoAttention : public Attention {
 public:
  const std::string& name() const override { return name_; }
  int64_t context_size() const override { return 0; }
  void prepare(const tensor::Tensor& keys, const std::vector<int64_t>&, bool) override {
    source_length_ = keys.dim(0);
  }
  void forward(const tensor::Tensor& query, int64_t, tensor::Tensor& context,
               tensor::Tensor* weights, AttentionTape* tape) override {
    context.resize(tensor::Shape{query.dim(0), query.dim(1), 0});
    if (weights) {
      weights->resize(tensor::Shape{query.dim(1), query.dim(0), source_length_});
      weights->zero();
    }
    if (tape) tape->query = query.view(query.shape());
  }
  void backward(AttentionTape& tape, const tensor::Tensor&, tensor::Tensor& d_query) override {
    d_query.resize(tape.query.shape());
    d_query.zero();
  }
  void finish_backward(tensor::Tensor&) override {}
  void select(const std::vector<int64_t>&) override {}
  void weights_changed() override {}

 private:
  std::string name_ = "none";
  int64_t source_length_ = 0;
};

}  // namespace

void register_none() {
  AttentionInfo info;
  info.name = "none";
  info.summary = "no attention: the decoder gets no context (baseline)";
  info.traits.position_weights = false;
  info.traits.uses_query = false;
  info.traits.normalizes = false;
  info.context_size = [](const AttentionConfig&) { return int64_t{0}; };
  info.flops = [](const AttentionShape&, const AttentionConfig&) { return AttentionFlops{}; };
  info.factory = [](const AttentionConfig&, layers::ParameterStore&, const std::string&) {
    return std::make_unique<NoAttention>();
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
