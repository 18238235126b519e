#include "heed/model/tokenizer_record.h"

#include "heed/common/error.h"

namespace heed::model {
namespace {

constexpr const char* kMode = "tokenizer_mode";
constexpr const char* kNormalization = "tokenizer_normalization";
constexpr const char* kLowercase = "tokenizer_lowercase";
constexpr const char* kCaseFeature = "tokenizer_case_feature";
constexpr const char* kBpeCodes = kBpeCodesKey;

}  // namespace

void record_tokenizer(const TokenizerRecord& record, std::map<std::string, std::string>& extra) {
  const text::TokenizerOptions& options = record.options;
  extra[kMode] = std::string(text::to_string(options.mode));
  extra[kNormalization] = std::string(text::to_string(options.normalization));
  extra[kLowercase] = options.lowercase ? "1" : "0";
  extra[kCaseFeature] = options.case_feature ? "1" : "0";
  if (!record.bpe_codes.empty()) extra[kBpeCodes] = record.bpe_codes;
}

std::optional<TokenizerRecord> recorded_tokenizer(const std::map<std::string, std::string>& extra) {
  const auto value = [&](const char* key) {
    const auto it = extra.find(key);
    return it == extra.end() ? nullptr : &it->second;
  };
  const auto parsed = [&](const char* key, auto parse) {
    try {
      return parse(*value(key));
    } catch (const ConfigError& e) {
      throw ConfigError(std::string(key) + ": " + e.what());
    }
  };
  const auto flag = [&](const char* key) {
    const std::string* text = value(key);
    if (text && *text != "0" && *text != "1") {
      throw ConfigError(std::string(key) + " is '" + *text + "', not 0 or 1");
    }
    return text && *text == "1";
  };
  // Every key is checked, also in a record without its mode (which heed-train never writes).
  std::optional<text::TokenizeMode> mode;
  if (value(kMode)) mode = parsed(kMode, text::parse_tokenize_mode);
  std::optional<text::Normalization> normalization;
  if (value(kNormalization)) normalization = parsed(kNormalization, text::parse_normalization);
  const bool lowercase = flag(kLowercase), case_feature = flag(kCaseFeature);
  if (!mode) return std::nullopt;
  TokenizerRecord record;
  record.options.mode = *mode;
  // Models before the form was recorded were all trained on heed-tokenize's default, NFC.
  if (normalization) record.options.normalization = *normalization;
  record.options.lowercase = lowercase;
  record.options.case_feature = case_feature;
  if (const std::string* codes = value(kBpeCodes)) record.bpe_codes = *codes;
  return record;
}

std::unique_ptr<text::Tokenizer> make_tokenizer(const TokenizerRecord& record,
                                                const std::string& name,
                                                const text::BpeOptions& bpe) {
  std::shared_ptr<const text::Bpe> codes;
  if (!record.bpe_codes.empty()) {
    codes = std::make_shared<const text::Bpe>(
        text::BpeCodes::parse(record.bpe_codes, name + " (BPE codes)"), bpe);
  }
  return std::make_unique<text::Tokenizer>(record.options, codes);
}

}  // namespace heed::model
