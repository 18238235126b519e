#include "heed/attention/feed_forward_pool.h"

#include <cmath>
#include <cstring>

#include "heed/common/check.h"

namespace heed::attention {

using tensor::Shape;
using tensor::Tensor;

namespace {

// Σ a[j]·b[j] in eight independent partial sums: the compiler may not reorder a sum, so one
// accumulator would run at the add's latency (heed-pooling at T = 10000 spends most of its time
// here). In double: backward centres these values, and what survives the centring is small.
template <class Real>
Real dot(const float* a, const float* b, int64_t k) {
  Real partial[8] = {};
  int64_t j = 0;
  for (; j + 8 <= k; j += 8) {
    for (int lane = 0; lane < 8; ++lane) partial[lane] += Real(a[j + lane]) * Real(b[j + lane]);
  }
  Real sum = 0;
  for (; j < k; ++j) sum += Real(a[j]) * Real(b[j]);
  for (Real p : partial) sum += p;
  return sum;
}

}  // namespace

FeedForwardPool::FeedForwardPool(int64_t width, layers::ParameterStore& store,
                                 const std::string& prefix, Normalizer normalizer)
    : width_(width),
      normalizer_(normalizer),
      w_(store.add(prefix + "w", Shape{width})),
      b_(store.add(prefix + "b", Shape{1})) {}

void FeedForwardPool::forward(const Tensor& keys, const std::vector<int64_t>& lengths,
                              Tensor& pooled, Tensor* weights) {
  const int64_t s = keys.dim(0), n = keys.dim(1), k = width_;
  HEED_CHECK(keys.rank() == 3 && keys.dim(2) == k, "ff-pool: keys shape");
  HEED_CHECK(static_cast<int64_t>(lengths.size()) == n, "ff-pool: lengths");
  keys_ = keys.view(keys.shape());
  energy_.resize(Shape{n, s});
  alpha_.resize(Shape{n, s});
  spans_.resize(size_t(n));
  const float* w = w_.value.data();
  const float b = b_.value.data()[0];
  for (int64_t row = 0; row < n; ++row) {
    const int64_t len = lengths[size_t(row)];
    HEED_CHECK(len >= 1 && len <= s, "ff-pool: lengths must be in [1, S]");
    spans_[size_t(row)] = Span{0, len};
  }
  // Every loop over the keys runs time-major, as they are stored: by sequence, each step would
  // be a jump of N·K floats, and at S = 10^4 the jumps cost more than the arithmetic.
  energy_.zero();
  for (int64_t i = 0; i < s; ++i) {
    for (int64_t row = 0; row < n; ++row) {
      if (i >= spans_[size_t(row)].end) continue;
      const float* h = keys.data() + (i * n + row) * k;
      energy_.data()[row * s + i] = std::tanh(b + dot<float>(w, h, k));
    }
  }
  std::memcpy(alpha_.data(), energy_.data(), energy_.bytes());
  normalize_rows(normalizer_, alpha_.data(), n, s, spans_.data());
  pooled.resize(Shape{n, k});
  pooled.zero();
  for (int64_t i = 0; i < s; ++i) {
    for (int64_t row = 0; row < n; ++row) {
      if (i >= spans_[size_t(row)].end) continue;
      float* c = pooled.data() + row * k;
      const float a = alpha_.data()[row * s + i];
      const float* h = keys.data() + (i * n + row) * k;
      for (int64_t j = 0; j < k; ++j) c[j] += a * h[j];
    }
  }
  if (weights) {
    weights->resize(alpha_.shape());
    std::memcpy(weights->data(), alpha_.data(), alpha_.bytes());
  }
}

void FeedForwardPool::backward(const Tensor& d_pooled, Tensor& d_keys) {
  const int64_t s = keys_.dim(0), n = keys_.dim(1), k = width_;
  HEED_CHECK(d_pooled.dim(0) == n && d_pooled.dim(1) == k, "ff-pool: d_pooled shape");
  HEED_CHECK(d_keys.shape() == keys_.shape(), "ff-pool: d_keys shape");
  // d α_s = d c · h_s; then through the normaliser to d e. The part d c · h̄ common to every
  // position cancels in the normaliser's backward (α sums to 1, so a constant added to a row
  // changes no d e), so each row is centred first, in double, and float32 keeps the digits that
  // survive.
  d_alpha_.resize(Shape{n, s});
  d_alpha_.zero();
  row_.assign(size_t(n * s), 0.0);
  mean_.assign(size_t(n), 0.0);
  for (int64_t i = 0; i < s; ++i) {
    for (int64_t row = 0; row < n; ++row) {
      if (i >= spans_[size_t(row)].end) continue;
      const float* h = keys_.data() + (i * n + row) * k;
      const double d = dot<double>(d_pooled.data() + row * k, h, k);
      row_[size_t(row * s + i)] = d;
      mean_[size_t(row)] += double(alpha_.data()[row * s + i]) * d;
    }
  }
  for (int64_t row = 0; row < n; ++row) {
    for (int64_t i = 0; i < spans_[size_t(row)].end; ++i) {
      d_alpha_.data()[row * s + i] = float(row_[size_t(row * s + i)] - mean_[size_t(row)]);
    }
  }
  normalize_rows_backward(normalizer_, alpha_.data(), d_alpha_.data(), n, s);
  const float* w = w_.value.data();
  float* dw = w_.grad.data();
  double db = 0;
  for (int64_t i = 0; i < s; ++i) {
    for (int64_t row = 0; row < n; ++row) {
      if (i >= spans_[size_t(row)].end) continue;
      const float* dc = d_pooled.data() + row * k;
      const float e = energy_.data()[row * s + i];
      const float d_pre = d_alpha_.data()[row * s + i] * (1.f - e * e);
      const float a = alpha_.data()[row * s + i];
      const float* h = keys_.data() + (i * n + row) * k;
      float* dh = d_keys.data() + (i * n + row) * k;
      for (int64_t j = 0; j < k; ++j) {
        dh[j] += a * dc[j] + d_pre * w[j];
        dw[j] += d_pre * h[j];
      }
      db += double(d_pre);
    }
  }
  b_.grad.data()[0] += static_cast<float>(db);
}

}  // namespace heed::attention
