#include "heed/model/rnn_stack.h"

#include <algorithm>
#include <utility>

#include "heed/tensor/tensor_ops.h"

namespace heed::model {

using tensor::Shape;
using tensor::Tensor;

namespace {

// A [1, N, C] view of a [N, C] tensor (one time step).
Tensor as_step(const Tensor& t) {
  return t.view(Shape{1, t.dim(0), t.dim(1)});
}

std::string layer_prefix(size_t layer) {
  return "decoder/rnn_" + std::to_string(layer) + "/";
}

}  // namespace

onednn::CellKind cell_kind(CellType cell) {
  return cell == CellType::kLstm ? onednn::CellKind::kLstm : onednn::CellKind::kGru;
}

void add_rnn_parameters(layers::ParameterStore& store, const std::string& prefix,
                        onednn::CellKind cell, int64_t input, int64_t hidden) {
  const int64_t gates = onednn::gate_count(cell) * hidden;
  store.add(prefix + "weight_ih", Shape{gates, input});
  store.add(prefix + "weight_hh", Shape{gates, hidden});
  store.add(prefix + "bias_ih", Shape{gates});
  store.add(prefix + "bias_hh", Shape{gates});
}

onednn::RnnWeights rnn_weights(layers::ParameterStore& store, const std::string& prefix) {
  return {&store.get(prefix + "weight_ih").value, &store.get(prefix + "weight_hh").value,
          &store.get(prefix + "bias_ih").value, &store.get(prefix + "bias_hh").value};
}

onednn::RnnGrads rnn_grads(layers::ParameterStore& store, const std::string& prefix) {
  return {&store.get(prefix + "weight_ih").grad, &store.get(prefix + "weight_hh").grad,
          &store.get(prefix + "bias_ih").grad, &store.get(prefix + "bias_hh").grad};
}

RnnStack::RnnStack(const ModelConfig& config, int64_t input_size, onednn::Precision precision,
                   layers::ParameterStore& store)
    : lstm_(config.cell == CellType::kLstm), hidden_(config.hidden), store_(&store) {
  const onednn::CellKind cell = cell_kind(config.cell);
  for (int l = 0; l < config.decoder_layers; ++l) {
    onednn::RnnConfig rc;
    rc.cell = cell;
    rc.input_size = l == 0 ? input_size : hidden_;
    rc.hidden_size = hidden_;
    rc.precision = precision;
    const std::string prefix = layer_prefix(size_t(l));
    add_rnn_parameters(store, prefix, cell, rc.input_size, hidden_);
    rnns_.emplace_back(rc);
    rnns_.back().set_weights(rnn_weights(store, prefix));
  }
}

void RnnStack::weights_changed() {
  for (auto& rnn : rnns_) rnn.weights_changed();
}

void RnnStack::start(int64_t t, int64_t n, const Tensor& initial, size_t chunks, bool training) {
  const size_t layers = rnns_.size();
  n_ = n;
  training_ = training;
  hs_.resize(layers);
  cs_.resize(layers);
  for (size_t l = 0; l < layers; ++l) {
    hs_[l].resize(Shape{t + 1, n, hidden_});
    Tensor h0 = hs_[l].select(0);
    tensor::take_columns(initial, int64_t(l) * hidden_, h0);
    if (lstm_) {
      cs_[l].resize(Shape{t + 1, n, hidden_});
      cs_[l].select(0).zero();
    }
  }
  if (!training) return;
  if (tapes_.size() < chunks) tapes_.resize(chunks);
  for (size_t i = 0; i < chunks; ++i) tapes_[i].resize(layers);
}

void RnnStack::run(size_t chunk, int64_t t0, int64_t t1, const Tensor& x0) {
  for (size_t l = 0; l < rnns_.size(); ++l) {
    const Tensor x = l == 0 ? x0.view(x0.shape()) : hs_[l - 1].slice(t0 + 1, t1 + 1);
    const Tensor h0 = hs_[l].select(t0);
    const Tensor c0 = lstm_ ? cs_[l].select(t0) : Tensor();
    Tensor y = hs_[l].slice(t0 + 1, t1 + 1);
    Tensor c_last = lstm_ ? cs_[l].select(t1) : Tensor();
    const onednn::RnnInputs in{&x, &h0, lstm_ ? &c0 : nullptr};
    const onednn::RnnOutputs out{&y, nullptr, lstm_ ? &c_last : nullptr};
    if (training_) {
      rnns_[l].forward_training(in, out, tapes_[chunk][l]);
    } else {
      rnns_[l].forward_inference(in, out);
    }
  }
}

Tensor RnnStack::top(int64_t t0, int64_t t1) const {
  return hs_.back().slice(t0 + 1, t1 + 1);
}

Tensor RnnStack::state_before(int64_t t) const {
  return hs_.back().select(t);
}

void RnnStack::start_backward() {
  const size_t layers = rnns_.size();
  for (auto* v : {&dh_, &dc_, &dh_tmp_, &dc_tmp_}) v->resize(layers);
  d_mid_.resize(2);
  for (size_t l = 0; l < layers; ++l) {
    for (auto* v : {&dh_, &dc_, &dh_tmp_, &dc_tmp_}) (*v)[l].resize(Shape{n_, hidden_});
    dh_[l].zero();
    dc_[l].zero();
  }
}

void RnnStack::backward(size_t chunk, const Tensor& d_top, Tensor& dx0) {
  const Tensor* dy = &d_top;
  for (size_t l = rnns_.size(); l-- > 0;) {
    Tensor* dx = l == 0 ? &dx0 : &d_mid_[l % 2];
    if (l > 0) dx->resize(Shape{d_top.dim(0), n_, hidden_});
    const onednn::RnnOutputGrads grads_out{dy, &dh_[l], lstm_ ? &dc_[l] : nullptr};
    const onednn::RnnInputGrads grads_in{dx, &dh_tmp_[l], lstm_ ? &dc_tmp_[l] : nullptr};
    rnns_[l].backward(tapes_[chunk][l], grads_out, grads_in);
    std::swap(dh_[l], dh_tmp_[l]);
    if (lstm_) std::swap(dc_[l], dc_tmp_[l]);
    dy = dx;
  }
}

void RnnStack::add_to_top_state_grad(const Tensor& d) {
  tensor::add(dh_.back(), d, dh_.back());
}

const Tensor& RnnStack::initial_grad() {
  d_initial_.resize(Shape{n_, int64_t(rnns_.size()) * hidden_});
  for (size_t l = 0; l < rnns_.size(); ++l) {
    tensor::copy_columns(dh_[l], d_initial_, int64_t(l) * hidden_);
  }
  return d_initial_;
}

void RnnStack::flush_grads() {
  for (size_t l = 0; l < rnns_.size(); ++l) {
    rnns_[l].flush_grads(rnn_grads(*store_, layer_prefix(l)));
  }
}

void RnnStack::start_search(const Tensor& initial) {
  const size_t layers = rnns_.size();
  const int64_t n = initial.dim(0);
  for (auto* v : {&h_, &c_, &h_next_, &c_next_}) v->resize(layers);
  for (size_t l = 0; l < layers; ++l) {
    h_[l].resize(Shape{n, hidden_});
    tensor::take_columns(initial, int64_t(l) * hidden_, h_[l]);
    if (lstm_) {
      c_[l].resize(Shape{n, hidden_});
      c_[l].zero();
    }
  }
}

void RnnStack::select(const std::vector<int64_t>& rows) {
  for (size_t l = 0; l < h_.size(); ++l) {
    tensor::gather_rows(h_[l], rows, h_next_[l]);
    std::swap(h_[l], h_next_[l]);
    if (lstm_) {
      tensor::gather_rows(c_[l], rows, c_next_[l]);
      std::swap(c_[l], c_next_[l]);
    }
  }
}

// A search step runs each layer over at most kStepRows rows at a time: oneDNN's RNN scratchpad
// grows with the rows it is given (72 KB a row for a 512-unit LSTM fed 1,280 inputs, bf16),
// and over all of a beam of 5 on a batch of 64 (320 rows, 23 MB) it was the largest buffer of a
// translation; 128 rows a run bound it whatever the beam and batch, still rows enough for
// the gate products to run at full width.
constexpr int64_t kStepRows = 128;

void RnnStack::step(const Tensor& x0) {
  const int64_t r = x0.dim(1);
  for (size_t l = 0; l < rnns_.size(); ++l) {
    const Tensor x = l == 0 ? x0.view(Shape{r, x0.dim(2)}) : h_[l - 1].view(h_[l - 1].shape());
    h_next_[l].resize(Shape{r, hidden_});
    if (lstm_) c_next_[l].resize(Shape{r, hidden_});
    for (int64_t r0 = 0; r0 < r; r0 += kStepRows) {
      const int64_t r1 = std::min(r, r0 + kStepRows);
      const Tensor x_rows = as_step(x.slice(r0, r1));
      const Tensor h_rows = h_[l].slice(r0, r1);
      const Tensor c_rows = lstm_ ? c_[l].slice(r0, r1) : Tensor();
      Tensor y_rows = as_step(h_next_[l].slice(r0, r1));
      Tensor c_next_rows = lstm_ ? c_next_[l].slice(r0, r1) : Tensor();
      const onednn::RnnInputs in{&x_rows, &h_rows, lstm_ ? &c_rows : nullptr};
      const onednn::RnnOutputs o{&y_rows, nullptr, lstm_ ? &c_next_rows : nullptr};
      rnns_[l].forward_inference(in, o);
    }
    std::swap(h_[l], h_next_[l]);
    if (lstm_) std::swap(c_[l], c_next_[l]);
  }
}

}  // namespace heed::model
