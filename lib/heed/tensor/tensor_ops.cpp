#include "heed/tensor/tensor_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "heed/common/check.h"

namespace heed::tensor {
namespace {

void check_same(const Tensor& a, const Tensor& b, const char* op) {
  HEED_CHECK(a.numel() == b.numel(),
             std::string(op) + ": " + a.shape().to_string() + " vs " + b.shape().to_string());
}

// Rows of the last axis: (number of rows, row length).
void rows_of(const Tensor& x, int64_t* rows, int64_t* cols) {
  HEED_CHECK(x.rank() >= 1, "row op on a rank-0 tensor");
  *cols = x.shape().back();
  *rows = *cols == 0 ? 0 : x.numel() / *cols;
}

// rows runs of cols floats, from rows from_stride apart to rows to_stride apart.
void copy_runs(const float* from, int64_t from_stride, float* to, int64_t to_stride, int64_t rows,
               int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) std::copy_n(from + r * from_stride, cols, to + r * to_stride);
}

}  // namespace

void add(const Tensor& a, const Tensor& b, Tensor& out) {
  check_same(a, b, "add");
  check_same(a, out, "add");
  const float* pa = a.data();
  const float* pb = b.data();
  float* po = out.data();
  for (int64_t i = 0, n = a.numel(); i < n; ++i) po[i] = pa[i] + pb[i];
}

void axpy(float alpha, const Tensor& x, Tensor& y) {
  check_same(x, y, "axpy");
  const float* px = x.data();
  float* py = y.data();
  for (int64_t i = 0, n = x.numel(); i < n; ++i) py[i] += alpha * px[i];
}

void scale(Tensor& x, float factor) {
  float* p = x.data();
  for (int64_t i = 0, n = x.numel(); i < n; ++i) p[i] *= factor;
}

void copy(const Tensor& src, Tensor& dst) {
  check_same(src, dst, "copy");
  const int64_t n = src.numel();
  if (n == 0 || src.raw() == dst.raw()) return;
  if (src.dtype() == dst.dtype()) {
    std::copy_n(static_cast<const char*>(src.raw()), src.bytes(), static_cast<char*>(dst.raw()));
  } else if (src.dtype() == DType::kF32) {
    float_to_bf16(src.data(), dst.data_bf16(), n);
  } else {
    bf16_to_float(src.data_bf16(), dst.data(), n);
  }
}

void copy_columns(const Tensor& src, Tensor& dst, int64_t offset) {
  int64_t rows = 0, cols = 0;
  rows_of(src, &rows, &cols);
  const int64_t width = dst.shape().back();
  HEED_CHECK(rows * width == dst.numel() && offset + cols <= width, "copy_columns: shapes");
  copy_runs(src.data(), cols, dst.data() + offset, width, rows, cols);
}

void take_columns(const Tensor& src, int64_t offset, Tensor& dst) {
  int64_t rows = 0, cols = 0;
  rows_of(dst, &rows, &cols);
  const int64_t width = src.shape().back();
  HEED_CHECK(rows * width == src.numel() && offset + cols <= width, "take_columns: shapes");
  copy_runs(src.data() + offset, width, dst.data(), cols, rows, cols);
}

void gather_rows(const Tensor& src, const std::vector<int64_t>& rows, Tensor& dst) {
  const int64_t width = src.dim(1);
  dst.resize(Shape{static_cast<int64_t>(rows.size()), width});
  for (size_t i = 0; i < rows.size(); ++i) {
    HEED_CHECK(rows[i] >= 0 && rows[i] < src.dim(0), "gather_rows: row out of range");
    std::copy_n(src.data() + rows[i] * width, width, dst.data() + static_cast<int64_t>(i) * width);
  }
}

void tanh(const Tensor& x, Tensor& y) {
  check_same(x, y, "tanh");
  const float* px = x.data();
  float* py = y.data();
  for (int64_t i = 0, n = x.numel(); i < n; ++i) py[i] = std::tanh(px[i]);
}

void tanh_backward(const Tensor& y, const Tensor& dy, Tensor& dx) {
  check_same(y, dy, "tanh_backward");
  check_same(y, dx, "tanh_backward");
  const float* py = y.data();
  const float* pdy = dy.data();
  float* pdx = dx.data();
  for (int64_t i = 0, n = y.numel(); i < n; ++i) pdx[i] = pdy[i] * (1.f - py[i] * py[i]);
}

void sigmoid(const Tensor& x, Tensor& y) {
  check_same(x, y, "sigmoid");
  const float* px = x.data();
  float* py = y.data();
  for (int64_t i = 0, n = x.numel(); i < n; ++i) py[i] = 1.f / (1.f + std::exp(-px[i]));
}

void sigmoid_backward(const Tensor& y, const Tensor& dy, Tensor& dx) {
  check_same(y, dy, "sigmoid_backward");
  check_same(y, dx, "sigmoid_backward");
  const float* py = y.data();
  const float* pdy = dy.data();
  float* pdx = dx.data();
  for (int64_t i = 0, n = y.numel(); i < n; ++i) pdx[i] = pdy[i] * py[i] * (1.f - py[i]);
}

void softmax(const Tensor& x, Tensor& y) {
  check_same(x, y, "softmax");
  int64_t rows, cols;
  rows_of(x, &rows, &cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float* px = x.data() + r * cols;
    float* py = y.data() + r * cols;
    const float m = *std::max_element(px, px + cols);
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) {
      py[c] = std::exp(px[c] - m);
      s += static_cast<double>(py[c]);
    }
    const float inv = static_cast<float>(1.0 / s);
    for (int64_t c = 0; c < cols; ++c) py[c] *= inv;
  }
}

void softmax_backward(const Tensor& y, const Tensor& dy, Tensor& dx) {
  check_same(y, dy, "softmax_backward");
  check_same(y, dx, "softmax_backward");
  int64_t rows, cols;
  rows_of(y, &rows, &cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float* py = y.data() + r * cols;
    const float* pdy = dy.data() + r * cols;
    float* pdx = dx.data() + r * cols;
    double dot = 0;
    for (int64_t c = 0; c < cols; ++c)
      dot += static_cast<double>(pdy[c]) * static_cast<double>(py[c]);
    const float d = static_cast<float>(dot);
    for (int64_t c = 0; c < cols; ++c) pdx[c] = py[c] * (pdy[c] - d);
  }
}

void log_softmax(const Tensor& x, Tensor& y) {
  check_same(x, y, "log_softmax");
  int64_t rows, cols;
  rows_of(x, &rows, &cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float* px = x.data() + r * cols;
    float* py = y.data() + r * cols;
    const float m = *std::max_element(px, px + cols);
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += std::exp(static_cast<double>(px[c] - m));
    const float log_sum = static_cast<float>(std::log(s));
    for (int64_t c = 0; c < cols; ++c) py[c] = (px[c] - m) - log_sum;
  }
}

void log_softmax_backward(const Tensor& y, const Tensor& dy, Tensor& dx) {
  check_same(y, dy, "log_softmax_backward");
  check_same(y, dx, "log_softmax_backward");
  int64_t rows, cols;
  rows_of(y, &rows, &cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float* py = y.data() + r * cols;
    const float* pdy = dy.data() + r * cols;
    float* pdx = dx.data() + r * cols;
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += static_cast<double>(pdy[c]);
    const float sf = static_cast<float>(s);
    for (int64_t c = 0; c < cols; ++c) pdx[c] = pdy[c] - std::exp(py[c]) * sf;
  }
}

void masked_fill(Tensor& x, const Tensor& mask, float value) {
  const Shape& xs = x.shape();
  const Shape& ms = mask.shape();
  HEED_CHECK(xs.rank() == ms.rank(),
             "masked_fill: mask " + ms.to_string() + " for " + xs.to_string());
  const int rank = xs.rank();
  // Mask strides, zero along broadcast axes.
  int64_t mstride[Shape::kMaxRank] = {};
  for (int a = 0; a < rank; ++a) {
    HEED_CHECK(ms[a] == xs[a] || ms[a] == 1,
               "masked_fill: mask " + ms.to_string() + " does not broadcast to " + xs.to_string());
    mstride[a] = ms[a] == 1 ? 0 : ms.stride(a);
  }
  float* px = x.data();
  const float* pm = mask.data();
  int64_t index[Shape::kMaxRank] = {};
  int64_t moff = 0;
  for (int64_t i = 0, n = x.numel(); i < n; ++i) {
    if (pm[moff] != 0.f) px[i] = value;
    // Odometer increment of the multi-index, keeping the mask offset in step.
    for (int a = rank - 1; a >= 0; --a) {
      moff += mstride[a];
      if (++index[a] < xs[a]) break;
      moff -= mstride[a] * xs[a];
      index[a] = 0;
    }
  }
}

Tensor sum(const Tensor& x, int axis) {
  const Shape& xs = x.shape();
  const int a = axis < 0 ? axis + xs.rank() : axis;
  HEED_CHECK(a >= 0 && a < xs.rank(),
             "sum: axis " + std::to_string(axis) + " of " + xs.to_string());
  std::vector<int64_t> dims;
  for (int i = 0; i < xs.rank(); ++i) {
    if (i != a) dims.push_back(xs[i]);
  }
  Tensor out{Shape(dims)};
  const int64_t inner = xs.stride(a);
  const int64_t n = xs[a];
  const int64_t outer = n * inner == 0 ? 0 : x.numel() / (n * inner);
  const float* px = x.data();
  float* po = out.data();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < n; ++k) {
      const float* row = px + (o * n + k) * inner;
      for (int64_t i = 0; i < inner; ++i) po[o * inner + i] += row[i];
    }
  }
  return out;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  check_same(a, b, "max_abs_diff");
  const std::vector<float> va = a.to_vector();
  const std::vector<float> vb = b.to_vector();
  double m = 0;
  for (size_t i = 0; i < va.size(); ++i) {
    const double d = std::fabs(static_cast<double>(va[i]) - static_cast<double>(vb[i]));
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    m = std::max(m, d);
  }
  return m;
}

}  // namespace heed::tensor
