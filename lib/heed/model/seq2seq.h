// The encoder-decoder: Encoder → Decoder (with its attention) → OutputLayer, over one
// ParameterStore whose names docs/attention.md lists. Teacher-forced loss and gradients for
// training and scoring, attention weights for forced alignment, and the pieces search needs.
#pragma once

#include <cstdint>
#include <memory>

#include "heed/attention/registry.h"
#include "heed/common/rng.h"
#include "heed/layers/output.h"
#include "heed/layers/parameters.h"
#include "heed/model/batch.h"
#include "heed/model/config.h"
#include "heed/model/decoder.h"
#include "heed/model/encoder.h"
#include "heed/onednn/precision.h"

namespace heed::model {

struct LossOptions {
  float label_smoothing = 0.f;
  bool training = true;  // dropout on
  bool backward = true;  // accumulate gradients of the mean loss into the store
  bool keep_attention = false;
  // Guided alignment (batches with a guide): adds weight · Σ_t Σ_s guide_ts · −log(α_ts + ε)
  // to the objective (not to the perplexity), pulling the attention towards the guide.
  float guided_alignment_weight = 0.f;
};

// What a model is built for: kInference keeps no gradients (half the parameters' memory in
// decoding) and its loss() computes no backward.
enum class ModelUse { kTraining, kInference };

class Seq2Seq {
 public:
  // Builds every layer from config as ModelConfig::validate left it, with the attention it
  // resolved (a config not validated yet is validated here: ConfigError); parameters start at
  // zero. With a limit, a model that would pass it is refused (ConfigError) before it is
  // allocated.
  Seq2Seq(ModelConfig config, onednn::Precision precision = onednn::Precision::kF32,
          layers::ParameterLimit limit = {}, ModelUse use = ModelUse::kTraining);
  ~Seq2Seq();
  Seq2Seq(const Seq2Seq&) = delete;
  Seq2Seq& operator=(const Seq2Seq&) = delete;

  const ModelConfig& config() const { return config_; }
  // The attention the model was built with, resolved once with its config (its name, traits,
  // options and context width); what the decoder, the decoding and the tools ask of it.
  const attention::ResolvedAttention& attention() const { return config_.resolved_attention(); }
  onednn::Precision precision() const { return precision_; }
  layers::ParameterStore& parameters() { return store_; }
  const layers::ParameterStore& parameters() const { return store_; }

  // Uniform(−scale, scale) for every parameter, from seed (OpenNMT's param_init 0.1).
  void initialize(uint64_t seed, float scale = 0.1f);
  // After the parameter values changed in place (optimizer step, load).
  void weights_changed();

  // Teacher-forced loss over the batch's target tokens. With options.backward, the gradient
  // of the mean (label-smoothed) loss, Σ loss / tokens, is added to the store's grads.
  layers::LossSums loss(const Batch& batch, const LossOptions& options, Rng& rng);
  // Attention weights [N, T, S] of the last loss() with keep_attention.
  const tensor::Tensor& attention_weights() const { return decoder_->attention_weights(); }

  Encoder& encoder() { return *encoder_; }
  Decoder& decoder() { return *decoder_; }
  layers::OutputLayer& output() { return *output_; }

 private:
  ModelConfig config_;  // validated: it carries the attention
  onednn::Precision precision_;
  layers::ParameterStore store_;
  std::unique_ptr<Encoder> encoder_;
  std::unique_ptr<Decoder> decoder_;
  std::unique_ptr<layers::OutputLayer> output_;
  // The guided-alignment term of the batch (a sum); its gradient, scaled, into d_weights_.
  double guided_alignment(const Batch& batch, float weight, float scale);

  std::vector<int32_t> targets_;  // time-major, −1 at padding
  tensor::Tensor d_out_, d_keys_, d_finals_, d_weights_;
};

}  // namespace heed::model
