// heed model files: a safetensors container (docs/model-format.md) whose metadata carries the
// format version, the ModelConfig, both vocabularies and a checksum of the tensor data.
#pragma once

#include <map>
#include <string>

#include "heed/io/safetensors.h"
#include "heed/model/config.h"
#include "heed/text/vocab.h"

namespace heed::model {

inline constexpr const char* kModelFormat = "heed-model";
// 2: attention_normalizer, attention_options and the bridges mean, last, ff-pool in the config.
inline constexpr int kModelFormatVersion = 2;
// The metadata key that says which weights a model file holds: "moving-average" when they are
// the exponential moving average of training (heed-train --exponential-smoothing); absent for
// the live weights.
inline constexpr const char* kWeightsKey = "weights";
// A training checkpoint keeps the moving average of each parameter beside the live weights, as
// the tensor kMovingAveragePrefix + the parameter's name.
inline constexpr const char* kMovingAveragePrefix = "ema/";

struct ModelFile {
  ModelConfig config;
  text::Vocab src_vocab;
  text::Vocab tgt_vocab;
  // Further metadata owned by the tools (tokenizer options, BPE codes, training state).
  std::map<std::string, std::string> extra;
  // The parameters, by their slash-scoped names.
  io::SafeTensors tensors;
  // The parameters are a moving average of the training weights (kWeightsKey), not the live ones.
  bool moving_average = false;
};

// Writes atomically (temp file, fsync, rename); sets format, version, config, vocabularies and
// checksum in the metadata. Throws WriteError.
void save_model(const std::string& path, const ModelFile& model);

// Reads and checks a model file: a well-formed safetensors file (FormatError otherwise), format
// "heed-model" (a foreign file is refused), a format_version not newer than this heed's, a
// matching checksum, a valid config and vocabularies whose sizes match the config. Every
// message names the file. FileError if it cannot be opened.
ModelFile load_model(const std::string& path);

}  // namespace heed::model
