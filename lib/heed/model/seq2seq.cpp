#include "heed/model/seq2seq.h"

#include <cmath>
#include <random>

#include "heed/common/check.h"
#include "heed/common/profile.h"

namespace heed::model {

Seq2Seq::Seq2Seq(ModelConfig config, onednn::Precision precision, layers::ParameterLimit limit,
                 ModelUse use)
    : config_(std::move(config)), precision_(precision), store_(use == ModelUse::kTraining) {
  if (!config_.validated()) config_.validate();
  store_.limit(std::move(limit));
  encoder_ = std::make_unique<Encoder>(config_, precision, store_);
  decoder_ = Decoder::make(config_, attention(), precision, store_);
  // Tied: the decoder's embedding matrix [V, E = O] is the projection; both uses add their
  // gradients into its one grad tensor.
  const int64_t width = decoder_->output_size();
  layers::Parameter& w =
      config_.tie_target_embeddings
          ? store_.get("decoder/embedding/weight")
          : store_.add("decoder/output/weight", tensor::Shape{config_.tgt_vocab_size, width});
  layers::Parameter& b = store_.add("decoder/output/bias", tensor::Shape{config_.tgt_vocab_size});
  output_ = std::make_unique<layers::OutputLayer>(width, config_.tgt_vocab_size, precision);
  output_->set_weights(w, b);
}

Seq2Seq::~Seq2Seq() = default;

void Seq2Seq::initialize(uint64_t seed, float scale) {
  Rng rng = make_rng(seed, /*stream=*/1);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  for (layers::Parameter* p : store_.all()) {
    float* v = p->value.data();
    for (int64_t i = 0; i < p->value.numel(); ++i) v[i] = uniform(rng);
    // A fixed start (Parameter::initial_value) still consumes its draws: the values of the
    // parameters after it do not depend on which ones start fixed.
    if (p->initial_value) p->value.fill(*p->initial_value);
    if (p->initial_identity) {
      const int64_t rows = p->value.dim(0);
      HEED_CHECK(p->value.rank() == 2 && p->value.dim(1) == rows, p->name + " is not square");
      p->value.zero();
      for (int64_t i = 0; i < rows; ++i) v[i * rows + i] = 1.f;
    }
  }
  weights_changed();
}

void Seq2Seq::weights_changed() {
  encoder_->weights_changed();
  decoder_->weights_changed();
  output_->weights_changed();
}

layers::LossSums Seq2Seq::loss(const Batch& batch, const LossOptions& options, Rng& rng) {
  const int64_t n = batch.size, s = batch.src_len, t = batch.tgt_len;
  HEED_CHECK(static_cast<int64_t>(batch.src.size()) == n * s &&
                 static_cast<int64_t>(batch.tgt_in.size()) == n * t,
             "batch tensors do not match its sizes");
  const bool train = options.backward;
  HEED_CHECK(!train || store_.has_gradients(), "a backward pass through a model built to decode");
  const bool guided = options.guided_alignment_weight > 0.f && !batch.guide.empty();
  HEED_CHECK(!guided || static_cast<int64_t>(batch.guide.size()) == n * t * s,
             "batch guide does not match its sizes");
  Rng* dropout_rng = options.training ? &rng : nullptr;
  {
    profile::Scope phase(profile::Phase::kEncoder);
    encoder_->forward(batch.src.data(), batch.src_lengths, n, s, train, dropout_rng);
  }
  const tensor::Tensor* out = nullptr;
  {
    profile::Scope phase(profile::Phase::kDecoderRnn);
    out = &decoder_->forward(encoder_->keys(), batch.src_lengths, encoder_->finals(),
                             batch.tgt_in.data(), batch.tgt_lengths, t, train, dropout_rng,
                             options.keep_attention || guided);
  }
  profile::Scope output_phase(profile::Phase::kOutput);
  targets_.assign(static_cast<size_t>(t * n), -1);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t i = 0; i < batch.tgt_lengths[size_t(b)]; ++i) {
      targets_[size_t(i * n + b)] = batch.tgt_out[size_t(b * t + i)];
    }
  }
  const int64_t tokens = batch.target_tokens();
  const float scale = tokens > 0 ? 1.f / static_cast<float>(tokens) : 0.f;
  layers::LossSums sums = output_->loss(*out, targets_.data(), options.label_smoothing, scale,
                                        train ? &d_out_ : nullptr);
  // A mechanism's own loss term (coverage) joins the objective, not the perplexity.
  sums.loss += decoder_->attention().auxiliary_loss();
  if (guided) sums.loss += guided_alignment(batch, options.guided_alignment_weight, scale);
  if (!train) return sums;
  decoder_->attention().set_loss_scale(scale);
  {
    profile::Scope phase(profile::Phase::kDecoderRnn);
    decoder_->backward(d_out_, d_keys_, d_finals_, guided ? &d_weights_ : nullptr);
  }
  profile::Scope phase(profile::Phase::kEncoder);
  encoder_->backward(d_keys_, decoder_->bridge().uses_finals() ? &d_finals_ : nullptr);
  return sums;
}

double Seq2Seq::guided_alignment(const Batch& batch, float weight, float scale) {
  profile::Scope phase(profile::Phase::kAttention);
  // Marian's cross-entropy form: the log keeps pulling until the linked positions hold the
  // mass; ε keeps it finite where a weight is exactly 0 (sparsemax, windows).
  constexpr float kEpsilon = 1e-6f;
  const tensor::Tensor& a = decoder_->attention_weights();  // [N, T, S]
  d_weights_.resize(a.shape());
  const float* alpha = a.data();
  float* d = d_weights_.data();
  double loss = 0;
  for (size_t i = 0; i < batch.guide.size(); ++i) {
    const float g = batch.guide[i];
    if (g == 0.f) {
      d[i] = 0.f;
      continue;
    }
    loss -= double(weight) * double(g) * std::log(double(alpha[i]) + double(kEpsilon));
    d[i] = -weight * scale * g / (alpha[i] + kEpsilon);
  }
  return loss;
}

}  // namespace heed::model
