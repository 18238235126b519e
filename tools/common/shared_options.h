// Option groups that several tools take, declared once (OpenNMT's add_tokenization_options): the
// tokenizer options of heed-tokenize and heed-train, the model options of heed-translate and
// heed-align extract, and --on-invalid of every tool that reads text.
#pragma once

#include <string>

#include "common/options.h"
#include "heed/onednn/precision.h"
#include "heed/text/input_check.h"
#include "heed/text/tokenizer.h"

namespace heed::cli {

// How a tool takes the tokenizer options: heed-tokenize applies them (--mode, --normalize,
// --lowercase, --case-feature); heed-train records those its data was tokenized with
// (--tokenizer-mode, --tokenizer-lowercase, --tokenizer-case-feature) in the model, so that
// heed-translate tokenizes raw text alike (the normalization is not recorded).
enum class TokenizerUse { kApply, kRecord };

// Adds the tokenizer options of use to group, bound to *target (validate() it after parsing).
void add_tokenizer_options(Group group, text::TokenizerOptions* target, TokenizerUse use);

// -m/--model: the model file heed-translate and heed-align extract read (required).
void add_model_option(Group group, std::string* target);
// --precision f32|bf16 of heed-translate and heed-align extract (heed-train explains more).
void add_precision_option(Group group, onednn::Precision* target,
                          const std::string& help = "f32 or bf16");
// ConfigError when precision is bf16 and this CPU cannot run it.
void check_precision_supported(onednn::Precision precision);

// --on-invalid of a tool that reads text: error or replace, and skip where allow_skip (a line
// with invalid UTF-8 or a NUL byte); checked as it is parsed.
void add_on_invalid(Group group, text::OnInvalid* target, bool allow_skip);

}  // namespace heed::cli
