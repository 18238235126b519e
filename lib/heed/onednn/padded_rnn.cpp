#include "heed/onednn/padded_rnn.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "heed/common/check.h"
#include "heed/tensor/tensor_ops.h"

namespace heed::onednn {

using tensor::DType;
using tensor::Shape;
using tensor::Tensor;

namespace {

// Row (t, n) of a time-major [T, N, C] f32 buffer.
inline float* row(float* base, int64_t t, int64_t n, int64_t batch, int64_t width) {
  return base + (t * batch + n) * width;
}
inline const float* row(const float* base, int64_t t, int64_t n, int64_t batch, int64_t width) {
  return base + (t * batch + n) * width;
}

void copy_row(float* dst, const float* src, int64_t width) {
  std::memcpy(dst, src, static_cast<size_t>(width) * sizeof(float));
}

void zero_row(float* dst, int64_t width) {
  std::memset(dst, 0, static_cast<size_t>(width) * sizeof(float));
}

// dst [T_dst, N, C] from src [T_src, N, C] for every sentence: steps t < len_n get src step
// (reverse ? len_n − 1 − t : t), later steps (up to T_dst) get zeros.
void gather(const Tensor& src, Tensor& dst, const std::vector<int64_t>& lengths, bool reverse) {
  const int64_t steps = dst.dim(0);
  const int64_t batch = dst.dim(1);
  const int64_t width = dst.dim(2);
  const float* s = src.data();
  float* d = dst.data();
  for (int64_t n = 0; n < batch; ++n) {
    const int64_t len = lengths[static_cast<size_t>(n)];
    for (int64_t t = 0; t < steps; ++t) {
      float* out = row(d, t, n, batch, width);
      if (t < len) {
        copy_row(out, row(s, reverse ? len - 1 - t : t, n, batch, width), width);
      } else {
        zero_row(out, width);
      }
    }
  }
}

}  // namespace

struct PaddedRnn::Impl {
  Rnn rnn;
  Direction direction;

  // The last forward.
  bool pending = false;
  bool segmented = false;
  bool has_c_final = false;
  std::vector<int64_t> lengths;
  int64_t steps = 0;  // T of the padded batch
  int64_t batch = 0;
  int64_t run_steps = 0;             // max length: the steps actually computed
  std::vector<int64_t> bounds;       // segment ends, ascending; the last is run_steps
  std::vector<RnnTape> tapes;        // one per segment
  std::vector<Tensor> seg_h, seg_c;  // state at each segment end (segmented runs)

  Tensor x_rev, y_rev;  // right-to-left: inputs/outputs in reversed order [run, N, ·]
  Tensor dy_run, dx_run, dh_last, dc_last, dh_next, dc_next;

  Impl(const RnnConfig& config, Direction d) : rnn(config), direction(d) {}

  bool reverse() const { return direction == Direction::kRightToLeft; }
  bool lstm() const { return rnn.config().cell == CellKind::kLstm; }
};

PaddedRnn::PaddedRnn(const RnnConfig& config, Direction direction)
    : impl_(std::make_unique<Impl>(config, direction)) {}
PaddedRnn::~PaddedRnn() = default;
PaddedRnn::PaddedRnn(PaddedRnn&&) noexcept = default;
PaddedRnn& PaddedRnn::operator=(PaddedRnn&&) noexcept = default;

Rnn& PaddedRnn::rnn() {
  return impl_->rnn;
}
const Rnn& PaddedRnn::rnn() const {
  return impl_->rnn;
}
Direction PaddedRnn::direction() const {
  return impl_->direction;
}

void PaddedRnn::forward(const Tensor& x, const std::vector<int64_t>& lengths, const Tensor* h0,
                        const Tensor* c0, Tensor& y, Tensor* h_final, Tensor* c_final,
                        bool training) {
  Impl& m = *impl_;
  const int64_t in = m.rnn.config().input_size;
  const int64_t h = m.rnn.config().hidden_size;
  HEED_CHECK(x.rank() == 3 && x.dim(2) == in && x.dtype() == DType::kF32,
             "padded rnn x " + x.shape().to_string() + ", expected [T, N, " + std::to_string(in) +
                 "] f32");
  const int64_t steps = x.dim(0);
  const int64_t batch = x.dim(1);
  HEED_CHECK(y.shape() == Shape({steps, batch, h}) && y.dtype() == DType::kF32,
             "padded rnn y " + y.shape().to_string());
  HEED_CHECK(static_cast<int64_t>(lengths.size()) == batch,
             std::to_string(lengths.size()) + " lengths for a batch of " + std::to_string(batch));
  for (int64_t len : lengths) {
    HEED_CHECK(len >= 1 && len <= steps, "sentence length " + std::to_string(len) +
                                             " outside [1, " + std::to_string(steps) + "]");
  }
  HEED_CHECK(m.lstm() || c_final == nullptr, "gru has no cell state");
  const Shape state({batch, h});
  if (h_final)
    HEED_CHECK(h_final->shape() == state, "padded rnn h_final " + h_final->shape().to_string());
  if (c_final)
    HEED_CHECK(c_final->shape() == state, "padded rnn c_final " + c_final->shape().to_string());

  const int64_t run = *std::max_element(lengths.begin(), lengths.end());
  const bool ragged =
      std::any_of(lengths.begin(), lengths.end(), [run](int64_t l) { return l != run; });
  m.pending = false;
  m.lengths = lengths;
  m.steps = steps;
  m.batch = batch;
  m.run_steps = run;
  m.segmented = c_final != nullptr && ragged;
  m.has_c_final = c_final != nullptr;
  m.bounds.clear();
  if (m.segmented) {
    m.bounds = lengths;
    std::sort(m.bounds.begin(), m.bounds.end());
    m.bounds.erase(std::unique(m.bounds.begin(), m.bounds.end()), m.bounds.end());
  } else {
    m.bounds.push_back(run);
  }
  const size_t segments = m.bounds.size();
  if (m.tapes.size() < segments) m.tapes.resize(segments);
  if (m.segmented && m.seg_h.size() < segments) {
    m.seg_h.resize(segments);
    m.seg_c.resize(segments);
  }

  // Inputs and outputs in run order.
  Tensor x_run, y_run;
  if (m.reverse()) {
    m.x_rev.resize(Shape({run, batch, in}));
    gather(x, m.x_rev, lengths, true);
    m.y_rev.resize(Shape({run, batch, h}));
    x_run = m.x_rev.view(m.x_rev.shape());
    y_run = m.y_rev.view(m.y_rev.shape());
  } else {
    x_run = x.slice(0, run);
    y_run = y.slice(0, run);
  }

  const Tensor* prev_h = h0;
  const Tensor* prev_c = c0;
  int64_t begin = 0;
  for (size_t j = 0; j < segments; ++j) {
    const int64_t end = m.bounds[j];
    const Tensor xs = x_run.slice(begin, end);
    Tensor ys = y_run.slice(begin, end);
    RnnOutputs out{&ys, nullptr, nullptr};
    if (m.segmented) {
      m.seg_h[j].resize(state);
      out.h_last = &m.seg_h[j];
      if (m.lstm()) {
        m.seg_c[j].resize(state);
        out.c_last = &m.seg_c[j];
      }
    } else {
      out.c_last = c_final;  // every sentence has length run: the final state is exact
    }
    const RnnInputs in_args{&xs, prev_h, prev_c};
    if (training) {
      m.rnn.forward_training(in_args, out, m.tapes[j]);
    } else {
      m.rnn.forward_inference(in_args, out);
    }
    prev_h = out.h_last;
    prev_c = out.c_last;
    begin = end;
  }

  // Final states.
  if (h_final != nullptr || (c_final != nullptr && m.segmented)) {
    for (int64_t n = 0; n < batch; ++n) {
      const int64_t len = lengths[static_cast<size_t>(n)];
      if (m.segmented) {
        const size_t j = static_cast<size_t>(
            std::lower_bound(m.bounds.begin(), m.bounds.end(), len) - m.bounds.begin());
        if (h_final) copy_row(h_final->data() + n * h, m.seg_h[j].data() + n * h, h);
        if (c_final) copy_row(c_final->data() + n * h, m.seg_c[j].data() + n * h, h);
      } else if (h_final) {
        copy_row(h_final->data() + n * h, row(y_run.data(), len - 1, n, batch, h), h);
      }
    }
  }
  // Outputs in reading order, zeros past each end.
  if (m.reverse()) {
    gather(m.y_rev, y, lengths, true);
  } else {
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t t = lengths[static_cast<size_t>(n)]; t < steps; ++t) {
        zero_row(row(y.data(), t, n, batch, h), h);
      }
    }
  }
  m.pending = training;
}

void PaddedRnn::backward(const Tensor& dy, const Tensor* dh_final, const Tensor* dc_final,
                         Tensor* dx, Tensor* dh0, Tensor* dc0) {
  Impl& m = *impl_;
  HEED_CHECK(m.pending, "padded rnn backward without a pending training forward");
  const int64_t in = m.rnn.config().input_size;
  const int64_t h = m.rnn.config().hidden_size;
  const int64_t batch = m.batch;
  const int64_t run = m.run_steps;
  const Shape state({batch, h});
  HEED_CHECK(dy.shape() == Shape({m.steps, batch, h}) && dy.dtype() == DType::kF32,
             "padded rnn dy " + dy.shape().to_string());
  if (dh_final)
    HEED_CHECK(dh_final->shape() == state, "padded rnn dh_final " + dh_final->shape().to_string());
  HEED_CHECK(dc_final == nullptr || m.has_c_final,
             "padded rnn: dc_final without c_final in the forward");
  if (dc_final)
    HEED_CHECK(dc_final->shape() == state, "padded rnn dc_final " + dc_final->shape().to_string());
  if (dx)
    HEED_CHECK(dx->shape() == Shape({m.steps, batch, in}),
               "padded rnn dx " + dx->shape().to_string());

  // Incoming gradients in run order, zero at padded steps.
  m.dy_run.resize(Shape({run, batch, h}));
  gather(dy, m.dy_run, m.lengths, m.reverse());
  Tensor dx_run;
  if (m.reverse() || dx == nullptr) {
    m.dx_run.resize(Shape({run, batch, in}));
    dx_run = m.dx_run.view(m.dx_run.shape());
  } else {
    dx_run = dx->slice(0, run);
  }

  if (!m.segmented) {
    if (dh_final) {
      for (int64_t n = 0; n < batch; ++n) {
        float* r = row(m.dy_run.data(), m.lengths[static_cast<size_t>(n)] - 1, n, batch, h);
        const float* d = dh_final->data() + n * h;
        for (int64_t k = 0; k < h; ++k) r[k] += d[k];
      }
    }
    m.rnn.backward(m.tapes[0], {&m.dy_run, nullptr, dc_final}, {&dx_run, dh0, dc0});
  } else {
    m.dh_next.resize(state);
    m.dh_next.zero();
    m.dh_last.resize(state);
    if (m.lstm()) {
      m.dc_next.resize(state);
      m.dc_next.zero();
      m.dc_last.resize(state);
    }
    for (size_t j = m.bounds.size(); j-- > 0;) {
      const int64_t begin = j == 0 ? 0 : m.bounds[j - 1];
      const int64_t end = m.bounds[j];
      // The state gradient leaving this segment: from the next segment, plus the final-state
      // gradients of the sentences that end here.
      tensor::copy(m.dh_next, m.dh_last);
      if (m.lstm()) tensor::copy(m.dc_next, m.dc_last);
      for (int64_t n = 0; n < batch; ++n) {
        if (m.lengths[static_cast<size_t>(n)] != end) continue;
        for (int64_t k = 0; k < h; ++k) {
          if (dh_final) m.dh_last.data()[n * h + k] += dh_final->data()[n * h + k];
          if (dc_final) m.dc_last.data()[n * h + k] += dc_final->data()[n * h + k];
        }
      }
      const Tensor dys = m.dy_run.slice(begin, end);
      Tensor dxs = dx_run.slice(begin, end);
      RnnInputGrads gi{&dxs, j == 0 ? dh0 : &m.dh_next, nullptr};
      if (m.lstm()) gi.dc0 = j == 0 ? dc0 : &m.dc_next;
      m.rnn.backward(m.tapes[j], {&dys, &m.dh_last, m.lstm() ? &m.dc_last : nullptr}, gi);
    }
  }

  if (dx != nullptr) {
    if (m.reverse()) {
      // gather() maps run order back to reading order: the reversal is its own inverse.
      Tensor full = dx->view(dx->shape());
      gather(m.dx_run, full, m.lengths, true);
    } else {
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t t = m.lengths[static_cast<size_t>(n)]; t < m.steps; ++t) {
          zero_row(row(dx->data(), t, n, batch, in), in);
        }
      }
    }
  }
  m.pending = false;
}

}  // namespace heed::onednn
