// heed model files: a safetensors container (docs/model-format.md) whose metadata carries the
// format version, the ModelConfig, both vocabularies and a checksum of the tensor data.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "heed/io/safetensors.h"
#include "heed/model/config.h"
#include "heed/text/bpe.h"
#include "heed/text/tokenizer.h"
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

// The metadata key of the BPE codes a model's text was segmented with (the codes file's text).
inline constexpr const char* kBpeCodesKey = "bpe_codes";

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

// The text processing a model records in its metadata (ModelFile::extra), the one owner of its
// keys: the tokenizer options the data was tokenized with and, when not empty, the BPE codes
// (the codes file's text), so that heed-translate and heed-align take raw text.
void record_text_processing(std::map<std::string, std::string>& extra,
                            const text::TokenizerOptions& tokenizer, const std::string& bpe_codes);
// The tokenizer extra records (with its BPE codes, applied with bpe's options), or null when it
// records none: the model reads tokens as given. name is used in messages (FormatError for codes
// that do not parse).
std::unique_ptr<text::Tokenizer> recorded_tokenizer(const std::map<std::string, std::string>& extra,
                                                    const std::string& name,
                                                    const text::BpeOptions& bpe = {});

// Writes atomically (temp file, fsync, rename); sets format, version, config, vocabularies and
// checksum in the metadata. Throws WriteError.
void save_model(const std::string& path, const ModelFile& model);

// Reads and checks a model file: a well-formed safetensors file (FormatError otherwise), format
// "heed-model" (a foreign file is refused), a format_version not newer than this heed's, a
// matching checksum, a valid config and vocabularies whose sizes match the config. Every
// message names the file. FileError if it cannot be opened.
ModelFile load_model(const std::string& path);

}  // namespace heed::model
