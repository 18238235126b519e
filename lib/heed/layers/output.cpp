#include "heed/layers/output.h"

#include <algorithm>

#include "heed/common/check.h"
#include "heed/onednn/softmax.h"

namespace heed::layers {

OutputLayer::OutputLayer(int64_t hidden, int64_t vocab, onednn::Precision precision,
                         int64_t chunk_rows)
    : hidden_(hidden),
      vocab_(vocab),
      chunk_rows_(chunk_rows > 0 ? chunk_rows
                                 : (std::clamp(kChunkLogits / std::max<int64_t>(vocab, 1),
                                               kMinChunkRows, kMaxChunkRows) +
                                    kRowMultiple - 1) /
                                       kRowMultiple * kRowMultiple),
      linear_(hidden, vocab, precision) {}

void OutputLayer::set_weights(Parameter& weight, Parameter& bias) {
  weight_ = &weight;
  bias_ = &bias;
  linear_.set_weights(weight.value, &bias.value);
}

void OutputLayer::weights_changed() {
  linear_.weights_changed();
  selected_.reset();  // its rows are copies of the old weights
}

LossSums OutputLayer::loss(const tensor::Tensor& x, const int32_t* targets, float label_smoothing,
                           float grad_scale, tensor::Tensor* d_x) {
  HEED_CHECK(weight_ != nullptr, "output layer used before set_weights");
  const int64_t rows = x.numel() / hidden_;
  const tensor::Tensor x2 = x.view(tensor::Shape{rows, hidden_});
  tensor::Tensor dx2;
  if (d_x) {
    d_x->resize(x.shape());
    dx2 = d_x->view(tensor::Shape{rows, hidden_});
  }
  kept_.clear();
  for (int64_t r = 0; r < rows; ++r) {
    if (targets[r] >= 0) kept_.push_back(r);
  }
  const auto kept = static_cast<int64_t>(kept_.size());
  if (kept == rows) return chunks(x2, targets, label_smoothing, grad_scale, d_x ? &dx2 : nullptr);

  // Rows without a target (a batch's padding, a tenth of its rows on Multi30k) are left out
  // rather than projected for nothing: the rows with one are gathered, in order, into a block
  // padded with ignored zero rows to a multiple of kRowMultiple, so that its chunks come in
  // few sizes and their products' kernels are built once, not at every new batch length.
  const int64_t padded = (kept + kRowMultiple - 1) / kRowMultiple * kRowMultiple;
  gathered_x_.resize(tensor::Shape{padded, hidden_});
  gathered_targets_.assign(static_cast<size_t>(padded), -1);
  const float* from = x2.data();
  float* to = gathered_x_.data();
  for (int64_t k = 0; k < kept; ++k) {
    const int64_t r = kept_[static_cast<size_t>(k)];
    std::copy(from + r * hidden_, from + (r + 1) * hidden_, to + k * hidden_);
    gathered_targets_[static_cast<size_t>(k)] = targets[r];
  }
  std::fill(to + kept * hidden_, to + padded * hidden_, 0.f);
  if (d_x) gathered_dx_.resize(tensor::Shape{padded, hidden_});
  const LossSums sums = chunks(gathered_x_, gathered_targets_.data(), label_smoothing, grad_scale,
                               d_x ? &gathered_dx_ : nullptr);
  if (d_x) {
    float* dx = dx2.data();
    std::fill(dx, dx + rows * hidden_, 0.f);
    const float* g = gathered_dx_.data();
    for (int64_t k = 0; k < kept; ++k) {
      const int64_t r = kept_[static_cast<size_t>(k)];
      std::copy(g + k * hidden_, g + (k + 1) * hidden_, dx + r * hidden_);
    }
  }
  return sums;
}

LossSums OutputLayer::chunks(const tensor::Tensor& x2, const int32_t* targets,
                             float label_smoothing, float grad_scale, tensor::Tensor* dx2) {
  const int64_t rows = x2.dim(0);
  const double eps = label_smoothing;
  const double smooth = eps / static_cast<double>(vocab_);
  LossSums sums;
  for (int64_t begin = 0; begin < rows; begin += chunk_rows_) {
    const int64_t end = std::min(rows, begin + chunk_rows_), m = end - begin;
    const tensor::Tensor xc = x2.slice(begin, end);
    logits_.resize(tensor::Shape{m, vocab_});
    log_p_.resize(tensor::Shape{m, vocab_});
    linear_.forward(xc, logits_);
    onednn::log_softmax(logits_, log_p_);
    for (int64_t r = 0; r < m; ++r) {
      const int32_t y = targets[begin + r];
      if (y < 0) continue;
      HEED_CHECK(y < vocab_, "target id outside the vocabulary");
      const float* lp = log_p_.data() + r * vocab_;
      double sum_lp = 0;
      if (eps > 0) {
        // Float sums over blocks of 64 (vectorised), blocks added in double.
        for (int64_t b = 0; b < vocab_; b += 64) {
          float partial = 0;
          const int64_t e = std::min(vocab_, b + 64);
          for (int64_t v = b; v < e; ++v) partial += lp[v];
          sum_lp += static_cast<double>(partial);
        }
      }
      const double nll = -static_cast<double>(lp[y]);
      sums.nll += nll;
      sums.loss += (1 - eps) * nll - smooth * sum_lp;
      ++sums.tokens;
    }
    if (!dx2) continue;
    // d logits = scale · (p − (1 − ε)·onehot − ε/V), in place in logits_; ignored rows are 0.
    onednn::exp(log_p_, logits_);
    const float scale = grad_scale;
    const float shift = static_cast<float>(smooth);
    for (int64_t r = 0; r < m; ++r) {
      float* g = logits_.data() + r * vocab_;
      const int32_t y = targets[begin + r];
      if (y < 0) {
        std::fill(g, g + vocab_, 0.f);
        continue;
      }
      for (int64_t v = 0; v < vocab_; ++v) g[v] = scale * (g[v] - shift);
      g[y] -= scale * static_cast<float>(1 - eps);
    }
    tensor::Tensor dxc = dx2->slice(begin, end);
    linear_.backward(xc, logits_, &dxc, weight_->grad, &bias_->grad);
  }
  return sums;
}

namespace {

// log_softmax(x · Wᵀ + b) [M, out] of x [..., in] (out resized).
void projected_log_softmax(onednn::Linear& linear, const tensor::Tensor& x, tensor::Tensor& out) {
  const int64_t rows = x.numel() / linear.in_features();
  out.resize(tensor::Shape{rows, linear.out_features()});
  linear.forward(x.view(tensor::Shape{rows, linear.in_features()}), out);
  onednn::log_softmax(out, out);
}

}  // namespace

void OutputLayer::log_probs(const tensor::Tensor& x, tensor::Tensor& out) {
  HEED_CHECK(weight_ != nullptr, "output layer used before set_weights");
  projected_log_softmax(linear_, x, out);
}

void OutputLayer::select_rows(const std::vector<int32_t>& ids) {
  HEED_CHECK(weight_ != nullptr, "output layer used before set_weights");
  HEED_CHECK(!ids.empty(), "output layer: no rows selected");
  const auto rows = static_cast<int64_t>(ids.size());
  // The same width as the last set keeps its product, with the plans (built kernels) and the
  // buffers, and only repacks the new rows. Otherwise the product goes first, so that the
  // buffers, no longer shared with its views, can be reused without a new allocation.
  const bool same_width = selected_ && selected_->out_features() == rows;
  if (!same_width) {
    selected_.reset();
    selected_weight_.resize(tensor::Shape{rows, hidden_});
    selected_bias_.resize(tensor::Shape{rows});
  }
  const float* weight = weight_->value.data();
  const float* bias = bias_->value.data();
  float* to = selected_weight_.data();
  for (int64_t r = 0; r < rows; ++r, to += hidden_) {
    const int32_t id = ids[static_cast<size_t>(r)];
    HEED_CHECK(id >= 0 && id < vocab_ && (r == 0 || id > ids[static_cast<size_t>(r) - 1]),
               "output layer: selected ids must be ascending vocabulary ids");
    std::copy(weight + id * hidden_, weight + (id + 1) * hidden_, to);
    selected_bias_.data()[r] = bias[id];
  }
  if (same_width) {
    selected_->weights_changed();
  } else {
    selected_ = std::make_unique<onednn::Linear>(hidden_, rows, linear_.precision());
    selected_->set_weights(selected_weight_, &selected_bias_);
  }
}

void OutputLayer::selected_log_probs(const tensor::Tensor& x, tensor::Tensor& out) {
  HEED_CHECK(selected_ != nullptr, "output layer: selected_log_probs before select_rows");
  projected_log_softmax(*selected_, x, out);
}

}  // namespace heed::layers
