// One LSTM step's training on heed's own products (lstm_step.h). The gate arithmetic of a row is
// compiled three times — AVX-512F+FMA, AVX2+FMA and the baseline — and picked at run time (as in
// attention/softmax_rows.cpp); the OpenMP loops over rows stay in baseline code.
#include "heed/onednn/lstm_step.h"

#include <algorithm>
#include <cstring>

#include "heed/common/check.h"
#include "heed/common/simd.h"
#include "heed/tensor/tensor_ops.h"

namespace heed::onednn::detail {

using tensor::DType;
using tensor::Shape;
using tensor::Tensor;

namespace {

using namespace simd;

// σ(x) = 1 / (1 + e^−x) for x ≥ 0 and e^x / (1 + e^x) below, from e^−|x|: relative error near
// float's everywhere, also where a gate is nearly shut (0.5 + 0.5·tanh(x/2) loses it there to
// cancellation).
HEED_INLINE Floats sigmoid(const Floats& x) {
  const Floats abs_x = (Floats)((Ints)x & 0x7fffffff);
  const Floats e = exp_nonpositive(-abs_x);
  const Floats r = 1.f / (1.f + e);
  return x >= 0.f ? r : e * r;
}

// The `count` ≤ kLanes floats at p, the other lanes 0.
HEED_INLINE Floats get(const float* p, int64_t count) {
  return count == kLanes ? load(p) : load_part(p, count);
}
HEED_INLINE void put(float* p, const Floats& x, int64_t count) {
  if (count == kLanes) {
    store(p, x);
  } else {
    store_part(p, x, count);
  }
}

// One row: gates [4H] pre-activations in, activations out; c1, tanh(c1) and h1 [H] out.
HEED_INLINE void forward_row_body(float* gates, const float* c0, float* c1, float* tanh_c,
                                  float* h1, int64_t h) {
  for (int64_t o = 0; o < h; o += kLanes) {
    const int64_t n = std::min(kLanes, h - o);
    const Floats i = sigmoid(get(gates + o, n));
    const Floats f = sigmoid(get(gates + h + o, n));
    const Floats g = simd::tanh(get(gates + 2 * h + o, n));
    const Floats out = sigmoid(get(gates + 3 * h + o, n));
    const Floats c = f * get(c0 + o, n) + i * g;
    const Floats tc = simd::tanh(c);
    put(gates + o, i, n);
    put(gates + h + o, f, n);
    put(gates + 2 * h + o, g, n);
    put(gates + 3 * h + o, out, n);
    put(c1 + o, c, n);
    put(tanh_c + o, tc, n);
    put(h1 + o, out * tc, n);
  }
}

// One row: the gradients at h1 (dh) and c1 (dc1) in; the pre-activation gate gradients [4H]
// and the gradient at c0 [H] out.
HEED_INLINE void backward_row_body(const float* gates, const float* c0, const float* tanh_c,
                                   const float* dh, const float* dc1, float* dgates, float* dc0,
                                   int64_t h) {
  for (int64_t o = 0; o < h; o += kLanes) {
    const int64_t n = std::min(kLanes, h - o);
    const Floats i = get(gates + o, n);
    const Floats f = get(gates + h + o, n);
    const Floats g = get(gates + 2 * h + o, n);
    const Floats out = get(gates + 3 * h + o, n);
    const Floats tc = get(tanh_c + o, n);
    const Floats d_h = get(dh + o, n);
    const Floats dc = get(dc1 + o, n) + d_h * out * (1.f - tc * tc);
    put(dgates + o, dc * g * i * (1.f - i), n);
    put(dgates + h + o, dc * get(c0 + o, n) * f * (1.f - f), n);
    put(dgates + 2 * h + o, dc * i * (1.f - g * g), n);
    put(dgates + 3 * h + o, d_h * tc * out * (1.f - out), n);
    put(dc0 + o, dc * f, n);
  }
}

using ForwardRowFn = void (*)(float*, const float*, float*, float*, float*, int64_t);
using BackwardRowFn = void (*)(const float*, const float*, const float*, const float*, const float*,
                               float*, float*, int64_t);

#define HEED_LSTM_STEP_VARIANT(suffix, target)                                                    \
  target void forward_row_##suffix(float* gates, const float* c0, float* c1, float* tanh_c,       \
                                   float* h1, int64_t h) {                                        \
    forward_row_body(gates, c0, c1, tanh_c, h1, h);                                               \
  }                                                                                               \
  target void backward_row_##suffix(const float* gates, const float* c0, const float* tanh_c,     \
                                    const float* dh, const float* dc1, float* dgates, float* dc0, \
                                    int64_t h) {                                                  \
    backward_row_body(gates, c0, tanh_c, dh, dc1, dgates, dc0, h);                                \
  }

HEED_LSTM_STEP_VARIANT(avx512, HEED_TARGET_AVX512)
HEED_LSTM_STEP_VARIANT(avx2, HEED_TARGET_AVX2)
HEED_LSTM_STEP_VARIANT(baseline, )

struct Variant {
  ForwardRowFn forward_row;
  BackwardRowFn backward_row;
};

const Variant& variant() {
  static const Variant by_level[] = {{forward_row_avx512, backward_row_avx512},
                                     {forward_row_avx2, backward_row_avx2},
                                     {forward_row_baseline, backward_row_baseline}};
  return by_level[cpu_level()];
}

// n elements from src (type st) to dst (type dt): tensor::copy for rows inside a buffer, which
// [x; h0] is assembled from (copy_columns is f32 only).
void copy_as(const void* src, DType st, void* dst, DType dt, int64_t n) {
  if (st == dt) {
    std::memcpy(dst, src, static_cast<size_t>(n) * tensor::dtype_size(dt));
  } else if (dt == DType::kBF16) {
    tensor::float_to_bf16(static_cast<const float*>(src), static_cast<uint16_t*>(dst), n);
  } else {
    tensor::bf16_to_float(static_cast<const uint16_t*>(src), static_cast<float*>(dst), n);
  }
}

// Element `index` of t's buffer, as a byte address.
const void* element(const Tensor& t, int64_t index) {
  return static_cast<const char*>(t.raw()) + index * int64_t(tensor::dtype_size(t.dtype()));
}
void* element(Tensor& t, int64_t index) {
  return static_cast<char*>(t.raw()) + index * int64_t(tensor::dtype_size(t.dtype()));
}

// t's values as f32: t itself, or a converted copy in `copy`.
const float* f32_of(const Tensor& t, Tensor& copy) {
  if (t.dtype() == DType::kF32) return t.data();
  copy.resize(t.shape());
  tensor::copy(t, copy);
  return copy.data();
}

// Rows [first_row, first_row + rows), columns [first_col, first_col + cols) of a matrix t.
MatrixRef block(const Tensor& t, int64_t first_row, int64_t rows, int64_t first_col, int64_t cols) {
  MatrixRef m;
  m.data = const_cast<void*>(element(t, first_row * t.dim(1) + first_col));
  m.dtype = t.dtype();
  m.rows = rows;
  m.cols = cols;
  m.row_stride = t.dim(1);
  return m;
}

}  // namespace

LstmStep::LstmStep(int64_t input_size, int64_t hidden_size, Precision precision)
    : input_(input_size),
      hidden_(hidden_size),
      data_type_(precision == Precision::kBF16 ? DType::kBF16 : DType::kF32),
      gates_mm_(precision),
      data_mm_(precision),
      weights_mm_(precision) {
  kept_xh_.reset(input_size + hidden_size, data_type_);
  kept_dgates_.reset(4 * hidden_size, data_type_);
}

void LstmStep::set_weights(const Tensor& weight_ih, const Tensor& weight_hh, uint64_t version) {
  if (version == staged_version_) return;
  const int64_t rows = 4 * hidden_, width = input_ + hidden_;
  weights_.resize(Shape({rows, width}));
  const float* ih = weight_ih.data();
  const float* hh = weight_hh.data();
  float* w = weights_.data();
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(w + r * width, ih + r * input_, static_cast<size_t>(input_) * sizeof(float));
    std::memcpy(w + r * width + input_, hh + r * hidden_,
                static_cast<size_t>(hidden_) * sizeof(float));
  }
  gates_mm_.weights_changed();
  data_mm_.weights_changed();
  staged_version_ = version;
}

void LstmStep::forward(const Tensor& x, const Tensor* h0, const Tensor* c0, const Tensor& bias,
                       Tensor* y, Tensor* h_last, Tensor* c_last, LstmStepRecord& record) {
  HEED_CHECK(staged_version_ != ~0ull, "lstm step used before set_weights");
  const int64_t n = x.dim(1), in = input_, h = hidden_, width = in + h;
  record.xh.resize(Shape({n, width}), data_type_);
  const size_t data_size = tensor::dtype_size(data_type_);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < n; ++r) {
    void* row = element(record.xh, r * width);
    copy_as(element(x, r * in), x.dtype(), row, data_type_, in);
    void* state = static_cast<char*>(row) + in * int64_t(data_size);
    if (h0 != nullptr) {
      copy_as(element(*h0, r * h), h0->dtype(), state, data_type_, h);
    } else {
      std::memset(state, 0, static_cast<size_t>(h) * data_size);
    }
  }
  record.c0.resize(Shape({n, h}));
  if (c0 != nullptr) {
    tensor::copy(*c0, record.c0);
  } else {
    record.c0.zero();
  }

  record.gates.resize(Shape({n, 4 * h}));
  MatMulOptions gates_options;
  gates_options.bias = &bias;
  gates_options.constant_b = true;
  gates_mm_.run(MatrixRef::of(record.xh), MatrixRef::of(weights_).transposed(),
                MatrixRef::of(record.gates), gates_options);

  record.tanh_c.resize(Shape({n, h}));
  const bool c_direct = c_last != nullptr && c_last->dtype() == DType::kF32;
  if (!c_direct) c1_.resize(Shape({n, h}));
  float* c1 = c_direct ? c_last->data() : c1_.data();
  h1_.resize(Shape({n, h}));
  const ForwardRowFn row = variant().forward_row;
  float* gates = record.gates.data();
  const float* c0s = record.c0.data();
  float* tanh_c = record.tanh_c.data();
  float* h1 = h1_.data();
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < n; ++r) {
    row(gates + r * 4 * h, c0s + r * h, c1 + r * h, tanh_c + r * h, h1 + r * h, h);
  }
  for (Tensor* out : {y, h_last}) {
    if (out != nullptr) tensor::copy(h1_, *out);
  }
  if (c_last != nullptr && !c_direct) tensor::copy(c1_, *c_last);
}

void LstmStep::backward(const LstmStepRecord& record, const Tensor* dy, const Tensor* dh_last,
                        const Tensor* dc_last, Tensor* dx, Tensor* dh0, Tensor* dc0,
                        float* diff_bias) {
  const int64_t n = record.xh.dim(0), in = input_, h = hidden_, width = in + h;
  const int64_t gate_width = 4 * h;
  // The gradient at h1 is dy + dh_last (y and h_last are both h1).
  dh_.resize(Shape({n, h}));
  if (dy == nullptr && dh_last == nullptr) {
    dh_.zero();
  } else {
    Tensor copy;
    const float* a = dy ? f32_of(*dy, copy) : nullptr;
    Tensor copy_b;
    const float* b = dh_last ? f32_of(*dh_last, copy_b) : nullptr;
    float* d = dh_.data();
    for (int64_t k = 0; k < n * h; ++k) d[k] = (a ? a[k] : 0.f) + (b ? b[k] : 0.f);
  }
  Tensor dc_copy;
  const float* dc1 = nullptr;
  if (dc_last != nullptr) {
    dc1 = f32_of(*dc_last, dc_copy);
  } else {
    zeros_.resize(Shape({n, h}));
    zeros_.zero();
    dc1 = zeros_.data();
  }
  const bool dc0_direct = dc0 != nullptr;
  if (!dc0_direct) dc0_.resize(Shape({n, h}));
  float* dc0s = dc0_direct ? dc0->data() : dc0_.data();

  // The kept buffers take this step's [x; h0] and gate gradients.
  const int64_t first = kept_dgates_.rows();
  void* kept_dgates = kept_dgates_.append(n);
  kept_xh_.append(record.xh.raw(), n);
  const bool f32 = data_type_ == DType::kF32;
  if (!f32) dgates_.resize(Shape({n, gate_width}));
  float* dgates = f32 ? static_cast<float*>(kept_dgates) : dgates_.data();
  const BackwardRowFn row = variant().backward_row;
  const float* gates = record.gates.data();
  const float* c0s = record.c0.data();
  const float* tanh_c = record.tanh_c.data();
  const float* dh = dh_.data();
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < n; ++r) {
    row(gates + r * gate_width, c0s + r * h, tanh_c + r * h, dh + r * h, dc1 + r * h,
        dgates + r * gate_width, dc0s + r * h, h);
  }
  for (int64_t r = 0; r < n; ++r) {
    const float* d = dgates + r * gate_width;
    for (int64_t k = 0; k < gate_width; ++k) diff_bias[k] += d[k];
  }
  if (!f32) {
    Tensor kept = kept_dgates_.view().slice(first, first + n);
    tensor::copy(dgates_, kept);
  }

  if (dx != nullptr || dh0 != nullptr) {
    dxh_.resize(Shape({n, width}));
    MatMulOptions data_options;
    data_options.constant_b = true;
    data_mm_.run(MatrixRef::of(kept_dgates_.view().slice(first, first + n)),
                 MatrixRef::of(weights_), MatrixRef::of(dxh_), data_options);
    const float* dxh = dxh_.data();
    for (int64_t r = 0; r < n; ++r) {
      if (dx != nullptr) std::memcpy(dx->data() + r * in, dxh + r * width, in * sizeof(float));
      if (dh0 != nullptr) {
        std::memcpy(dh0->data() + r * h, dxh + r * width + in, h * sizeof(float));
      }
    }
  }
}

void LstmStep::flush(Tensor* grad_ih, Tensor* grad_hh) {
  if (kept_dgates_.rows() > 0) {
    const Tensor dgates = kept_dgates_.view(), xh = kept_xh_.view();
    const int64_t rows = xh.dim(0);
    MatMulOptions accumulate;
    accumulate.accumulate = true;
    const MatrixRef dgates_t = MatrixRef::of(dgates).transposed();
    if (grad_ih != nullptr) {
      weights_mm_.run(dgates_t, block(xh, 0, rows, 0, input_), MatrixRef::of(*grad_ih), accumulate);
    }
    if (grad_hh != nullptr) {
      weights_mm_.run(dgates_t, block(xh, 0, rows, input_, hidden_), MatrixRef::of(*grad_hh),
                      accumulate);
    }
  }
  kept_xh_.clear();
  kept_dgates_.clear();
}

}  // namespace heed::onednn::detail
