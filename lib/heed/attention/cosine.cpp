// "cosine" (AllenNLP 0.9 CosineAttention): e_s = q·h_s / ((‖q‖ + ε)(‖h_s‖ + ε)), ε = 1e-13 as
// in AllenNLP, which keeps a zero vector's scores at 0 instead of NaN. No parameters; needs
// Q = K. The scores are the product of the unit query with the unit keys, which are formed
// once per sentence batch in prepare(); a step costs what "dot" costs plus Q for the query's
// norm.
#include <cmath>

#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"

namespace heed::attention {
namespace {

using tensor::Shape;
using tensor::Tensor;

constexpr double kEpsilon = 1e-13;

// units [rows, width] = x / (‖x‖ + ε) row by row; norms [rows] = ‖x‖.
void unit_rows(const Tensor& x, Tensor& units, Tensor& norms) {
  const int64_t width = x.dim(x.rank() - 1), rows = x.numel() / width;
  units.resize(x.shape());
  norms.resize(Shape{rows});
  for (int64_t r = 0; r < rows; ++r) {
    const float* v = x.data() + r * width;
    double sum = 0;
    for (int64_t k = 0; k < width; ++k) sum += double(v[k]) * double(v[k]);
    const double norm = std::sqrt(sum), inverse = 1.0 / (norm + kEpsilon);
    norms.data()[r] = float(norm);
    for (int64_t k = 0; k < width; ++k) units.data()[r * width + k] = float(double(v[k]) * inverse);
  }
}

// Backward of unit_rows: dx (+)= (d − (u·d)·x/‖x‖) / (‖x‖ + ε) with u the unit row. At a zero
// row the norm's gradient is taken as 0 (PyTorch's choice), leaving d/ε.
void unit_rows_backward(const Tensor& x, const Tensor& norms, const Tensor& d_units, Tensor& dx,
                        bool accumulate) {
  const int64_t width = x.dim(x.rank() - 1), rows = x.numel() / width;
  for (int64_t r = 0; r < rows; ++r) {
    const float* v = x.data() + r * width;
    const float* d = d_units.data() + r * width;
    float* out = dx.data() + r * width;
    const double norm = norms.data()[r], inverse = 1.0 / (norm + kEpsilon);
    double x_dot_d = 0;
    for (int64_t k = 0; k < width; ++k) x_dot_d += double(v[k]) * double(d[k]);
    // u·d · x/‖x‖ = (x·d)·x / (‖x‖ (‖x‖ + ε)).
    const double radial = norm > 0 ? x_dot_d * inverse / norm : 0.0;
    for (int64_t k = 0; k < width; ++k) {
      const float g = float((double(d[k]) - radial * double(v[k])) * inverse);
      out[k] = accumulate ? out[k] + g : g;
    }
  }
}

class CosineAttention : public ProductAttention {
 public:
  explicit CosineAttention(const AttentionConfig& config)
      : ProductAttention("cosine", config, 1.f) {}

 protected:
  const Tensor& projected_keys() const override { return unit_keys_; }
  Tensor& projected_grad() override { return d_unit_keys_; }

  void precompute(bool training) override {
    unit_rows(keys_, unit_keys_, key_norms_);
    if (training) {
      d_unit_keys_.resize(unit_keys_.shape());
      d_unit_keys_.zero();
    }
  }

  void score(const Tensor& query, int64_t step, const std::vector<Span>& spans, Tensor& scores,
             AttentionTape* tape) override {
    Tensor& unit_query = tape ? tape->slot(0) : unit_query_;
    Tensor& query_norms = tape ? tape->slot(1) : query_norms_;
    unit_rows(query, unit_query, query_norms);
    ProductAttention::score(unit_query, step, spans, scores, tape);
  }

  void score_backward(AttentionTape& tape, const Tensor& d_scores, Tensor& d_query) override {
    // The product's backward, with the unit query in the place of the query.
    product_tape_.query = tape.saved[0].view(tape.saved[0].shape());
    d_unit_query_.resize(d_query.shape());
    ProductAttention::score_backward(product_tape_, d_scores, d_unit_query_);
    unit_rows_backward(tape.query, tape.saved[1], d_unit_query_, d_query, /*accumulate=*/false);
  }

  void precompute_backward(Tensor& d_keys) override {
    unit_rows_backward(keys_, key_norms_, d_unit_keys_, d_keys, /*accumulate=*/true);
  }

  void select_precomputed(const std::vector<int64_t>&, const KeySelection& keys) override {
    select_key_side(unit_keys_, keys, select_scratch_);
  }

 private:
  Tensor unit_keys_, key_norms_, d_unit_keys_, select_scratch_;
  Tensor unit_query_, query_norms_, d_unit_query_;  // inference; backward scratch
  AttentionTape product_tape_;
};

}  // namespace

void register_cosine() {
  AttentionInfo info;
  info.name = "cosine";
  info.traits.shares_key_side = true;  // ProductAttention
  info.summary =
      "q·h/(|q| |h|) (AllenNLP cosine; no parameters; norms + 1e-13; needs query size = key "
      "size)";
  info.flops = [](const AttentionShape& shape, const AttentionConfig& config) {
    const int64_t k = config.key_size;
    AttentionFlops flops;
    add_product_flops(flops, shape, shape.source_length, k, k);
    // The norms ‖h_s‖ once per batch and ‖q‖ per query, and the dot product of each unit
    // vector's backward.
    const double key_norms = 2.0 * double(shape.batch * shape.source_length * k);
    const double query_norms = 2.0 * double(shape.batch * shape.queries * k);
    flops.precompute += key_norms;
    flops.precompute_backward += key_norms;
    flops.forward += query_norms;
    flops.backward += query_norms;
    return flops;
  };
  info.factory = [](const AttentionConfig& config, layers::ParameterStore&, const std::string&) {
    require_equal_sizes("cosine", config);
    return std::make_unique<CosineAttention>(config);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
