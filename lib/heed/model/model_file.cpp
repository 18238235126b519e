#include "heed/model/model_file.h"

#include <vector>

#include "heed/common/error.h"
#include "heed/model/tokenizer_record.h"

namespace heed::model {
namespace {

const char* const kReserved[] = {
    "format",   "format_version",    "config",   "src_vocab", "tgt_vocab",
    "checksum", "metadata_checksum", kWeightsKey};
// What kWeightsKey says of a model whose weights are a moving average (absent: the live ones).
const char* const kMovingAverageWeights = "moving-average";

}  // namespace

void save_model(const std::string& path, const ModelFile& model) {
  io::SafeTensors out = model.tensors;
  for (const auto& [key, value] : model.extra) {
    for (const char* reserved : kReserved) {
      if (key == reserved) throw InternalError("model metadata key '" + key + "' is reserved");
    }
    out.set_metadata(key, value);
  }
  out.set_metadata("format", kModelFormat);
  out.set_metadata("format_version", std::to_string(kModelFormatVersion));
  out.set_metadata("config", model.config.to_json());
  out.set_metadata("src_vocab", model.src_vocab.to_string());
  out.set_metadata("tgt_vocab", model.tgt_vocab.to_string());
  if (model.moving_average) out.set_metadata(kWeightsKey, kMovingAverageWeights);
  // The metadata checksum covers every other key: the config and the vocabularies, but also
  // what the tools keep there (tokenizer options, BPE codes, training state).
  out.set_checksums();
  out.save(path);
}

ModelFile load_model(const std::string& path) {
  ModelFile model;
  model.tensors = io::SafeTensors::load(path);
  const auto& meta = model.tensors.metadata();
  auto fail = [&path](const std::string& what) -> FormatError {
    return FormatError("'" + path + "' " + what);
  };
  auto format = meta.find("format");
  if (format == meta.end() || format->second != kModelFormat) {
    throw fail("is not a heed model (a safetensors file without heed's metadata)");
  }
  auto version = meta.find("format_version");
  if (version == meta.end()) throw fail("has no format_version");
  // Digits only: "2abc", "2.9" and " 2" are not version 2.
  const std::string& digits = version->second;
  if (digits.empty() || digits.size() > 6 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    throw fail("has a malformed format_version '" + digits + "'");
  }
  const int v = std::stoi(digits);
  if (v > kModelFormatVersion) {
    throw fail("has model format version " + std::to_string(v) + ", newer than this heed reads (" +
               std::to_string(kModelFormatVersion) + "): use a newer heed");
  }
  if (v < 1) throw fail("has an invalid format_version " + std::to_string(v));
  // Files written before the metadata checksum was introduced have none; they still load.
  model.tensors.check_checksums(/*metadata_optional=*/true);
  if (const auto weights = meta.find(kWeightsKey); weights != meta.end()) {
    if (weights->second != kMovingAverageWeights) {
      throw fail("is invalid: " + std::string(kWeightsKey) + " is '" + weights->second +
                 "', not '" + kMovingAverageWeights + "'");
    }
    model.moving_average = true;
  }
  try {
    model.config = ModelConfig::from_json(model.tensors.metadata("config"));
    model.src_vocab =
        text::Vocab::from_string(model.tensors.metadata("src_vocab"), path + ":src_vocab");
    model.tgt_vocab =
        text::Vocab::from_string(model.tensors.metadata("tgt_vocab"), path + ":tgt_vocab");
  } catch (const FormatError& e) {
    throw fail(std::string("is invalid: ") + e.what());
  }
  if (model.src_vocab.size() != model.config.src_vocab_size ||
      model.tgt_vocab.size() != model.config.tgt_vocab_size) {
    throw fail("is invalid: the vocabulary sizes do not match the config");
  }
  for (const auto& [key, value] : meta) {
    bool reserved = false;
    for (const char* r : kReserved) reserved = reserved || key == r;
    if (!reserved) model.extra[key] = value;
  }
  // The tokenizer heed-train records is read back by heed-translate and heed-align: a value
  // heed-train never writes is refused here, naming the file.
  try {
    (void)recorded_tokenizer(model.extra);
  } catch (const ConfigError& e) {
    throw fail(std::string("is invalid: ") + e.what());
  }
  return model;
}

}  // namespace heed::model
