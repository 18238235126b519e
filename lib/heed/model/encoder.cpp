#include "heed/model/encoder.h"

#include <functional>

#include "heed/common/parallel.h"
#include "heed/layers/embedding.h"
#include "heed/model/rnn_stack.h"
#include "heed/onednn/context.h"
#include "heed/onednn/padded_rnn.h"
#include "heed/tensor/tensor_ops.h"

namespace heed::model {

using tensor::Shape;
using tensor::Tensor;

struct Encoder::Layer {
  std::string prefix;
  onednn::PaddedRnn fwd;
  std::unique_ptr<onednn::PaddedRnn> bwd;
  layers::Dropout dropout;  // on this layer's output when another layer follows
  Tensor y_fwd, y_bwd, h_fwd, h_bwd, out;
  Tensor dx_fwd, dx_bwd, dh_fwd, dh_bwd;

  Layer(const std::string& p, const onednn::RnnConfig& config, bool bidirectional, float drop)
      : prefix(p), fwd(config, onednn::Direction::kLeftToRight), dropout(drop) {
    if (bidirectional) {
      bwd = std::make_unique<onednn::PaddedRnn>(config, onednn::Direction::kRightToLeft);
    }
  }
};

namespace {

// A bidirectional layer's two directions in training: at once, one thread each, when oneDNN has
// two threads. Each direction is a chain of small products (a step of the marian bench's model
// is 64 rows by 256 units) that one core runs better alone than two cores together: its encoder
// phase 38-42 → 30-32 ms an update in bf16 (docs/benchmarks.md, "heed beside Marian"). Not
// with more threads: OpenMP does not nest, so the others would wait, and nothing was measured.
void run_directions(bool together, const std::function<void()>& left_to_right,
                    const std::function<void()>& right_to_left) {
  if (!together) {
    left_to_right();
    right_to_left();
    return;
  }
  parallel_for(2, 2, [&](size_t i) {
    onednn::set_threads(1);  // this thread's oneDNN calls: one thread, this one
    (i == 0 ? left_to_right : right_to_left)();
  });
}

}  // namespace

Encoder::Encoder(const ModelConfig& config, onednn::Precision precision,
                 layers::ParameterStore& store)
    : key_size_(config.key_size()),
      direction_size_(config.encoder_direction_size()),
      bidirectional_(config.bidirectional),
      word_dropout_(config.dropout_src, config.embed),
      dropout_(config.dropout) {
  embedding_ = &store.add("encoder/embedding/weight", Shape{config.src_vocab_size, config.embed});
  const onednn::CellKind cell = cell_kind(config.cell);
  for (int l = 0; l < config.encoder_layers; ++l) {
    onednn::RnnConfig rc;
    rc.cell = cell;
    rc.input_size = l == 0 ? config.embed : key_size_;
    rc.hidden_size = direction_size_;
    rc.precision = precision;
    const std::string prefix = "encoder/rnn_" + std::to_string(l) + "/";
    auto layer = std::make_unique<Layer>(prefix, rc, bidirectional_, config.dropout);
    add_rnn_parameters(store, prefix + "fwd/", cell, rc.input_size, rc.hidden_size);
    layer->fwd.rnn().set_weights(rnn_weights(store, prefix + "fwd/"));
    if (bidirectional_) {
      add_rnn_parameters(store, prefix + "bwd/", cell, rc.input_size, rc.hidden_size);
      layer->bwd->rnn().set_weights(rnn_weights(store, prefix + "bwd/"));
    }
    layers_.push_back(std::move(layer));
  }
  store_ = &store;
}

Encoder::~Encoder() = default;

void Encoder::weights_changed() {
  for (auto& layer : layers_) {
    layer->fwd.rnn().weights_changed();
    if (layer->bwd) layer->bwd->rnn().weights_changed();
  }
}

void Encoder::forward(const int32_t* src, const std::vector<int64_t>& lengths, int64_t n, int64_t s,
                      bool training, Rng* dropout_rng) {
  src_ = src;
  lengths_ = lengths;
  n_ = n;
  s_ = s;
  layers::embedding_forward(embedding_->value, src, n, s, embedded_);
  word_dropout_.forward(embedded_, dropout_rng);
  dropout_.forward(embedded_, dropout_rng);
  const Tensor* x = &embedded_;
  for (size_t l = 0; l < layers_.size(); ++l) {
    Layer& layer = *layers_[l];
    const bool top = l + 1 == layers_.size();
    layer.y_fwd.resize(Shape{s, n, direction_size_});
    layer.h_fwd.resize(Shape{n, direction_size_});
    if (bidirectional_) {
      layer.y_bwd.resize(Shape{s, n, direction_size_});
      layer.h_bwd.resize(Shape{n, direction_size_});
    }
    run_directions(
        bidirectional_ && training && onednn::threads() == 2,
        [&] {
          layer.fwd.forward(*x, lengths, nullptr, nullptr, layer.y_fwd,
                            top ? &layer.h_fwd : nullptr, nullptr, training);
        },
        [&] {
          if (bidirectional_) {
            layer.bwd->forward(*x, lengths, nullptr, nullptr, layer.y_bwd,
                               top ? &layer.h_bwd : nullptr, nullptr, training);
          }
        });
    Tensor& out = top ? keys_ : layer.out;
    if (bidirectional_) {
      out.resize(Shape{s, n, key_size_});
      tensor::copy_columns(layer.y_fwd, out, 0);
      tensor::copy_columns(layer.y_bwd, out, direction_size_);
    } else if (top) {
      out = layer.y_fwd.view(layer.y_fwd.shape());
    } else {
      // A copy: dropout must not touch y, which the RNN's backward reads.
      out.resize(layer.y_fwd.shape());
      tensor::copy(layer.y_fwd, out);
    }
    if (top) {
      finals_.resize(Shape{n, key_size_});
      tensor::copy_columns(layer.h_fwd, finals_, 0);
      if (bidirectional_) tensor::copy_columns(layer.h_bwd, finals_, direction_size_);
    } else {
      layer.dropout.forward(out, dropout_rng);
    }
    x = &out;
  }
}

void Encoder::backward(const Tensor& d_keys, const Tensor* d_finals) {
  d_out_.resize(d_keys.shape());
  tensor::copy(d_keys, d_out_);
  for (size_t i = layers_.size(); i-- > 0;) {
    Layer& layer = *layers_[i];
    const bool top = i + 1 == layers_.size();
    if (!top) layer.dropout.backward(d_out_);
    const Tensor* dh_fwd = nullptr;
    const Tensor* dh_bwd = nullptr;
    if (top && d_finals) {
      layer.dh_fwd.resize(Shape{n_, direction_size_});
      tensor::take_columns(*d_finals, 0, layer.dh_fwd);
      dh_fwd = &layer.dh_fwd;
      if (bidirectional_) {
        layer.dh_bwd.resize(Shape{n_, direction_size_});
        tensor::take_columns(*d_finals, direction_size_, layer.dh_bwd);
        dh_bwd = &layer.dh_bwd;
      }
    }
    const int64_t input = i == 0 ? embedded_.dim(2) : key_size_;
    layer.dx_fwd.resize(Shape{s_, n_, input});
    if (bidirectional_) {
      d_half_.resize(Shape{s_, n_, direction_size_});
      d_half_bwd_.resize(Shape{s_, n_, direction_size_});
      tensor::take_columns(d_out_, 0, d_half_);
      tensor::take_columns(d_out_, direction_size_, d_half_bwd_);
      layer.dx_bwd.resize(Shape{s_, n_, input});
      run_directions(
          onednn::threads() == 2,
          [&] {
            layer.fwd.backward(d_half_, dh_fwd, nullptr, &layer.dx_fwd, nullptr, nullptr);
            layer.fwd.rnn().flush_grads(rnn_grads(*store_, layer.prefix + "fwd/"));
          },
          [&] {
            layer.bwd->backward(d_half_bwd_, dh_bwd, nullptr, &layer.dx_bwd, nullptr, nullptr);
            layer.bwd->rnn().flush_grads(rnn_grads(*store_, layer.prefix + "bwd/"));
          });
      tensor::add(layer.dx_fwd, layer.dx_bwd, layer.dx_fwd);
    } else {
      layer.fwd.backward(d_out_, dh_fwd, nullptr, &layer.dx_fwd, nullptr, nullptr);
      layer.fwd.rnn().flush_grads(rnn_grads(*store_, layer.prefix + "fwd/"));
    }
    std::swap(d_out_, layer.dx_fwd);
  }
  dropout_.backward(d_out_);
  word_dropout_.backward(d_out_);
  layers::embedding_backward(d_out_, src_, lengths_.data(), n_, s_, embedding_->grad);
}

}  // namespace heed::model
