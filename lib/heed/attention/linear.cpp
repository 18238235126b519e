// "linear" (Katharopoulos et al. 2020): kernelised attention with the feature map
// φ(x) = elu(x) + 1 (positive), the values being the keys:
//   c = Σ_s φ(q)·φ(h_s) h_s / Σ_s φ(q)·φ(h_s) = (φ(q)ᵀ Z) / (φ(q)·z),
//   Z = Σ_s φ(h_s) h_sᵀ [K, K], z = Σ_s φ(h_s) [K] over the sentence's own positions.
// Z and z are summed once per sentence in prepare(), so a query costs K² whatever the source
// length. No per-position weights are formed on the way to the context; when forward() is asked
// for them (alignment) it computes a_s = φ(q)·φ(h_s) / φ(q)·z, which are exactly the weights
// with c = Σ_s a_s h_s. There is no normaliser (the ratio is the normalisation).
#include <cmath>
#include <cstring>
#include <string>

#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"
#include "heed/common/check.h"

namespace heed::attention {
namespace {

using onednn::MatMulOptions;
using onednn::MatrixRef;
using tensor::Shape;
using tensor::Tensor;

float feature(float x) {
  return x > 0.f ? x + 1.f : std::exp(x);
}
// dφ/dx from x and φ(x).
float feature_slope(float x, float phi) {
  return x > 0.f ? 1.f : phi;
}

class LinearAttention : public Attention {
 public:
  explicit LinearAttention(const AttentionConfig& config)
      : config_(config),
        // Every product in f32 at every precision, as ScoredAttention's score and context
        // products: stepped, bf16 made them slower (docs/benchmarks.md).
        sums_mm_(onednn::Precision::kF32),
        numerator_mm_(onednn::Precision::kF32),
        weights_mm_(onednn::Precision::kF32),
        d_phi_query_mm_(onednn::Precision::kF32),
        d_sums_mm_(onednn::Precision::kF32),
        d_keys_mm_(onednn::Precision::kF32),
        d_phi_keys_mm_(onednn::Precision::kF32) {}

  const std::string& name() const override { return name_; }
  int64_t context_size() const override { return config_.key_size; }

  void prepare(const Tensor& keys, const std::vector<int64_t>& lengths, bool training) override {
    const int64_t s = keys.dim(0), n = keys.dim(1), k = config_.key_size;
    check_keys(keys, lengths, k);
    keys_ = keys.view(keys.shape());
    lengths_ = lengths;
    key_rows_.reset(lengths.size());
    training_ = training;
    // φ(h_s), exactly 0 at padded positions so that they add nothing to Z, z or the weights.
    phi_keys_.resize(keys.shape());
    for (int64_t i = 0; i < s; ++i) {
      for (int64_t b = 0; b < n; ++b) {
        const float* h = keys.data() + (i * n + b) * k;
        float* phi = phi_keys_.data() + (i * n + b) * k;
        const bool inside = i < lengths[size_t(b)];
        for (int64_t j = 0; j < k; ++j) phi[j] = inside ? feature(h[j]) : 0.f;
      }
    }
    // Z_b = Σ_s φ(h_s) h_sᵀ; z_b = Σ_s φ(h_s) summed in double.
    sums_.resize(Shape{1, n, k * k});
    sums_mm_.run(MatrixRef::time_major(phi_keys_).transposed(), MatrixRef::time_major(keys),
                 per_sentence(sums_));
    normaliser_.resize(Shape{1, n, k});
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t j = 0; j < k; ++j) {
        double sum = 0;
        for (int64_t i = 0; i < lengths[size_t(b)]; ++i) {
          sum += double(phi_keys_.data()[(i * n + b) * k + j]);
        }
        normaliser_.data()[b * k + j] = float(sum);
      }
    }
    if (training) {
      d_sums_.resize(sums_.shape());
      d_sums_.zero();
      d_normaliser_.resize(normaliser_.shape());
      d_normaliser_.zero();
    }
    keys_changed();
  }

  void forward(const Tensor& query, int64_t step, Tensor& context, Tensor* weights,
               AttentionTape* tape) override {
    const int64_t tq = query.dim(0), n = sums_.dim(1), k = config_.key_size;
    HEED_CHECK(query.dim(1) == n && query.dim(2) == config_.query_size, "attention: query shape");
    Tensor& phi_query = tape ? tape->slot(0) : phi_query_;
    Tensor& denominators = tape ? tape->slot(1) : denominators_;
    if (tape) {
      tape->step = step;
      tape->query = query.view(query.shape());
    }
    phi_query.resize(query.shape());
    const float* q = query.data();
    float* phi = phi_query.data();
    for (int64_t i = 0; i < query.numel(); ++i) phi[i] = feature(q[i]);
    // Numerators φ(q)ᵀ Z_b, then each row divided by its φ(q)·z_b.
    context.resize(Shape{tq, n, k});
    numerator_mm_.run(MatrixRef::time_major(phi_query), per_sentence(sums_),
                      MatrixRef::time_major(context), key_side_options());
    denominators.resize(Shape{tq, n});
    for (int64_t t = 0; t < tq; ++t) {
      for (int64_t b = 0; b < n; ++b) {
        const float* p = phi + (t * n + b) * k;
        const float* z = normaliser_.data() + b * k;
        double den = 0;
        for (int64_t j = 0; j < k; ++j) den += double(p[j]) * double(z[j]);
        denominators.data()[t * n + b] = float(den);
        float* c = context.data() + (t * n + b) * k;
        const float inverse = float(1.0 / den);
        for (int64_t j = 0; j < k; ++j) c[j] *= inverse;
      }
    }
    if (tape) {
      Tensor& kept = tape->slot(2);
      kept.resize(context.shape());
      std::memcpy(kept.data(), context.data(), context.bytes());
    }
    if (weights) alignment(phi_query, denominators, *weights);
  }

  void backward(AttentionTape& tape, const Tensor& d_context, Tensor& d_query) override {
    HEED_CHECK(training_, "attention backward without a training prepare");
    const Tensor& phi_query = tape.slot(0);
    const Tensor& denominators = tape.slot(1);
    const Tensor& context = tape.slot(2);
    const int64_t tq = phi_query.dim(0), n = phi_query.dim(1), k = config_.key_size;
    // c = m / den with m = φ(q)ᵀ Z, den = φ(q)·z: d m = d c / den, d den = −(d c·c) / den.
    d_numerator_.resize(phi_query.shape());
    d_denominator_.resize(Shape{tq, n});
    for (int64_t r = 0; r < tq * n; ++r) {
      const float den = denominators.data()[r];
      const float* dc = d_context.data() + r * k;
      const float* c = context.data() + r * k;
      float* dm = d_numerator_.data() + r * k;
      double dot = 0;
      for (int64_t j = 0; j < k; ++j) {
        dm[j] = dc[j] / den;
        dot += double(dc[j]) * double(c[j]);
      }
      d_denominator_.data()[r] = float(-dot / double(den));
    }
    // d φ(q) = Z d m + d den · z; d Z += φ(q) d mᵀ; d z += d den · φ(q).
    d_query.resize(phi_query.shape());
    d_phi_query_mm_.run(MatrixRef::time_major(d_numerator_), per_sentence(sums_).transposed(),
                        MatrixRef::time_major(d_query));
    MatMulOptions accumulate;
    accumulate.accumulate = true;
    d_sums_mm_.run(MatrixRef::time_major(phi_query).transposed(),
                   MatrixRef::time_major(d_numerator_), per_sentence(d_sums_), accumulate);
    const float* q = tape.query.data();
    for (int64_t t = 0; t < tq; ++t) {
      for (int64_t b = 0; b < n; ++b) {
        const int64_t r = t * n + b;
        const float dd = d_denominator_.data()[r];
        const float* z = normaliser_.data() + b * k;
        const float* p = phi_query.data() + r * k;
        float* dz = d_normaliser_.data() + b * k;
        float* dq = d_query.data() + r * k;
        for (int64_t j = 0; j < k; ++j) {
          dz[j] += dd * p[j];
          dq[j] = (dq[j] + dd * z[j]) * feature_slope(q[r * k + j], p[j]);
        }
      }
    }
  }

  void finish_backward(Tensor& d_keys) override {
    HEED_CHECK(training_, "attention backward without a training prepare");
    const int64_t n = keys_.dim(1), k = config_.key_size;
    // Through the values: d h_s += d Zᵀ φ(h_s) (0 at padding, where φ(h_s) = 0).
    MatMulOptions accumulate;
    accumulate.accumulate = true;
    d_keys_mm_.run(MatrixRef::time_major(phi_keys_), per_sentence(d_sums_),
                   MatrixRef::time_major(d_keys), accumulate);
    // Through the features: d φ(h_s) = d Z h_s + d z, times φ'(h_s), inside the sentence only.
    d_phi_keys_.resize(keys_.shape());
    d_phi_keys_mm_.run(MatrixRef::time_major(keys_), per_sentence(d_sums_).transposed(),
                       MatrixRef::time_major(d_phi_keys_));
    for (int64_t b = 0; b < n; ++b) {
      const float* dz = d_normaliser_.data() + b * k;
      for (int64_t i = 0; i < lengths_[size_t(b)]; ++i) {
        const int64_t at = (i * n + b) * k;
        for (int64_t j = 0; j < k; ++j) {
          d_keys.data()[at + j] += (d_phi_keys_.data()[at + j] + dz[j]) *
                                   feature_slope(keys_.data()[at + j], phi_keys_.data()[at + j]);
        }
      }
    }
  }

  void select(const std::vector<int64_t>& rows) override {
    select_lengths(lengths_, rows, selected_lengths_);
    const KeySelection& keys = key_rows_.select(rows, /*owned=*/true, /*shared=*/false);
    select_key_side(sums_, keys, select_scratch_);
    select_key_side(normaliser_, keys, select_scratch_);
    select_key_side(phi_keys_, keys, select_scratch_);
    training_ = false;
    keys_ = Tensor();
    if (keys.moved) keys_changed();
  }

  void weights_changed() override {}

 private:
  // a [N, Tq, S]: a_s = φ(q)·φ(h_s) / φ(q)·z (0 at padding, where φ(h_s) = 0).
  void alignment(const Tensor& phi_query, const Tensor& denominators, Tensor& weights) {
    const int64_t tq = phi_query.dim(0), n = phi_query.dim(1), s = phi_keys_.dim(0);
    weights.resize(Shape{n, tq, s});
    weights_mm_.run(MatrixRef::time_major(phi_query), MatrixRef::time_major(phi_keys_).transposed(),
                    MatrixRef::of(weights));
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t t = 0; t < tq; ++t) {
        float* w = weights.data() + (b * tq + t) * s;
        const float inverse = 1.f / denominators.data()[t * n + b];
        for (int64_t i = 0; i < s; ++i) w[i] *= inverse;
      }
    }
  }

  // Z_b of [1, N, K·K] as N matrices [K, K].
  MatrixRef per_sentence(const Tensor& t) const {
    MatrixRef m = MatrixRef::time_major(t);
    m.rows = config_.key_size;
    m.cols = config_.key_size;
    m.row_stride = config_.key_size;
    return m;
  }

  MatMulOptions key_side_options() const {
    MatMulOptions options;
    options.constant_b = !training_;
    return options;
  }

  void keys_changed() { numerator_mm_.weights_changed(); }

  std::string name_ = "linear";
  AttentionConfig config_;
  Tensor keys_;  // view of the caller's keys (training)
  std::vector<int64_t> lengths_, selected_lengths_;
  bool training_ = false;
  Tensor phi_keys_;    // [S, N, K] φ(h_s), 0 at padding
  Tensor sums_;        // [1, N, K·K] Z
  Tensor normaliser_;  // [1, N, K] z
  Tensor d_sums_, d_normaliser_, d_phi_keys_, select_scratch_;
  KeySideRows key_rows_;
  Tensor phi_query_, denominators_;  // inference scratch (training: in the tape)
  Tensor d_numerator_, d_denominator_;
  onednn::MatMul sums_mm_, numerator_mm_, weights_mm_, d_phi_query_mm_, d_sums_mm_, d_keys_mm_,
      d_phi_keys_mm_;
};

}  // namespace

void register_linear() {
  AttentionInfo info;
  info.name = "linear";
  info.summary =
      "φ(q)·Σφ(h)hᵀ / φ(q)·Σφ(h), φ = elu + 1 (Katharopoulos linear attention; no parameters)";
  info.traits.position_weights = false;
  info.traits.normalizes = false;
  info.flops = [](const AttentionShape& shape, const AttentionConfig& config) {
    const double k = double(config.key_size);
    const double rows = double(shape.batch * shape.queries);
    AttentionFlops flops;
    // Z = Σ_s φ(h_s) h_sᵀ once per batch (z is a sum); backward through the values and φ.
    flops.precompute = 2.0 * double(shape.batch * shape.source_length) * k * k;
    flops.precompute_backward = 2 * flops.precompute;
    // φ(q)ᵀ Z and φ(q)·z per query; backward d φ(q) and d Z (K² each), d c·c, d z, d φ(q)'s z.
    flops.forward = 2 * rows * (k * k + k);
    flops.backward = 2 * rows * (2 * k * k + 3 * k);
    return flops;
  };
  info.factory = [](const AttentionConfig& config, layers::ParameterStore&, const std::string&) {
    require_equal_sizes("linear", config);
    return std::make_unique<LinearAttention>(config);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
