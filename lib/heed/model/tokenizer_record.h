// The tokenizer a model was trained with, as its file records it: heed-train writes it when its
// data came from heed-tokenize, heed-translate and heed-align read it back to take raw text, and
// load_model refuses a record heed-train never writes. The metadata keys live here alone.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "heed/text/bpe.h"
#include "heed/text/tokenizer.h"

namespace heed::model {

// The key of the BPE codes (the codes file's text) in a model file's metadata.
inline constexpr const char* kBpeCodesKey = "bpe_codes";

struct TokenizerRecord {
  text::TokenizerOptions options;
  std::string bpe_codes;  // the BPE codes file's text; empty for none
};

// Adds the record to a model file's metadata (ModelFile::extra).
void record_tokenizer(const TokenizerRecord& record, std::map<std::string, std::string>& extra);

// The record in a model file's metadata; none when the model works on tokens as given. A value
// heed-train never writes (a mode, a form, a flag other than 0 or 1) is a ConfigError naming
// its key, never taken as a user's option or silently as "off". The BPE codes are returned as
// text: their parser names the file.
std::optional<TokenizerRecord> recorded_tokenizer(const std::map<std::string, std::string>& extra);

// The tokenizer a record describes, its BPE codes (if any) applied with bpe's options (dropout
// for training). name is used in messages: FormatError for codes that do not parse.
std::unique_ptr<text::Tokenizer> make_tokenizer(const TokenizerRecord& record,
                                                const std::string& name,
                                                const text::BpeOptions& bpe = {});

}  // namespace heed::model
