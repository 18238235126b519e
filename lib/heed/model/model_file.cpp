#include "heed/model/model_file.h"

#include <vector>

#include "heed/common/error.h"
#include "heed/text/tokenizer.h"

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

namespace {

// The tokenizer heed-train records (tools/train/options.cpp) is read back by heed-translate and
// heed-align: a value heed-train never writes is refused here, naming the file, rather than
// taken as a user's option (a mode) or silently as "off" (a flag).
template <class Fail>
void check_tokenizer_metadata(const std::map<std::string, std::string>& extra, Fail fail) {
  const auto value = [&](const char* key) {
    const auto it = extra.find(key);
    return it == extra.end() ? nullptr : &it->second;
  };
  const auto parsed = [&](const char* key, auto parse) {
    const std::string* text = value(key);
    try {
      if (text) parse(*text);
    } catch (const ConfigError& e) {
      throw fail(std::string("is invalid: ") + key + ": " + e.what());
    }
  };
  parsed("tokenizer_mode", text::parse_tokenize_mode);
  parsed("tokenizer_normalization", text::parse_normalization);
  for (const char* key : {"tokenizer_lowercase", "tokenizer_case_feature"}) {
    const std::string* flag = value(key);
    if (flag && *flag != "0" && *flag != "1") {
      throw fail(std::string("is invalid: ") + key + " is '" + *flag + "', not 0 or 1");
    }
  }
}

}  // namespace

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
  check_tokenizer_metadata(model.extra, fail);
  return model;
}

void record_text_processing(std::map<std::string, std::string>& extra,
                            const text::TokenizerOptions& tokenizer, const std::string& bpe_codes) {
  extra["tokenizer_mode"] = std::string(text::to_string(tokenizer.mode));
  extra["tokenizer_normalization"] = std::string(text::to_string(tokenizer.normalization));
  extra["tokenizer_lowercase"] = tokenizer.lowercase ? "1" : "0";
  extra["tokenizer_case_feature"] = tokenizer.case_feature ? "1" : "0";
  if (!bpe_codes.empty()) extra[kBpeCodesKey] = bpe_codes;
}

std::unique_ptr<text::Tokenizer> recorded_tokenizer(const std::map<std::string, std::string>& extra,
                                                    const std::string& name,
                                                    const text::BpeOptions& bpe) {
  if (!extra.count("tokenizer_mode")) return nullptr;
  const auto flag = [&](const char* key) { return extra.count(key) && extra.at(key) == "1"; };
  text::TokenizerOptions tokenizer;
  tokenizer.mode = text::parse_tokenize_mode(extra.at("tokenizer_mode"));
  // Models before the form was recorded were all trained on heed-tokenize's default, NFC.
  if (extra.count("tokenizer_normalization")) {
    tokenizer.normalization = text::parse_normalization(extra.at("tokenizer_normalization"));
  }
  tokenizer.lowercase = flag("tokenizer_lowercase");
  tokenizer.case_feature = flag("tokenizer_case_feature");
  std::shared_ptr<const text::Bpe> codes;
  if (extra.count(kBpeCodesKey)) {
    codes = std::make_shared<const text::Bpe>(
        text::BpeCodes::parse(extra.at(kBpeCodesKey), name + " (BPE codes)"), bpe);
  }
  return std::make_unique<text::Tokenizer>(tokenizer, codes);
}

}  // namespace heed::model
