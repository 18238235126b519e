#include "common/shared_options.h"

#include <vector>

#include "heed/common/error.h"
#include "heed/onednn/context.h"

namespace heed::cli {
namespace {

// A choice among names the library parses: the option's own name in the message, as for
// cli::choice ("--mode: unknown value 'x' (expected conservative or aggressive)").
template <class T, class Parse>
Value named_choice(T* target, const std::string& option, std::vector<std::string> names,
                   Parse parse) {
  return choice(target, std::string(text::to_string(*target)),
                [option, names = std::move(names), parse](const std::string& name) {
                  check_choice(option, name, names);
                  return parse(name);
                });
}

}  // namespace

void add_tokenizer_options(Group group, text::TokenizerOptions* target, TokenizerUse use) {
  const bool apply = use == TokenizerUse::kApply;
  const std::string prefix = apply ? "" : "tokenizer-";
  const auto help = [apply](const std::string& applied, const std::string& recorded) {
    return apply ? applied : recorded;
  };
  // clang-format off
  group(prefix + "mode",
        named_choice(&target->mode, prefix + "mode", {"conservative", "aggressive"},
                     text::parse_tokenize_mode),
        help("conservative (keeps 2,000 and soft-landing) or aggressive (splits them)",
             "heed-tokenize --mode the data was tokenized with (stored in the model)"));
  group(prefix + "normalize",
        named_choice(&target->normalization, prefix + "normalize", {"nfc", "nfkc", "none"},
                     text::parse_normalization),
        help("Unicode normalization: nfc, nfkc or none",
             "heed-tokenize --normalize the data was tokenized with (stored in the model)"));
  group(prefix + "lowercase",
        flag(&target->lowercase),
        help("lowercase every token (lossy)",
             "the data was tokenized with --lowercase"));
  group(prefix + "case-feature",
        flag(&target->case_feature),
        help("lowercase tokens and mark their case so detokenize restores it",
             "the data was tokenized with --case-feature"));
  // clang-format on
}

void add_model_option(Group group, std::string* target) {
  group("model,m", required_text(target), "model file (heed-train's model.heed)");
}

void add_precision_option(Group group, onednn::Precision* target, const std::string& help) {
  group("precision", choice(target, onednn::precision_name(*target), onednn::parse_precision),
        help);
}

void check_precision_supported(onednn::Precision precision) {
  if (precision == onednn::Precision::kBF16 && !onednn::bf16_supported()) {
    throw ConfigError(
        "--precision bf16: this CPU has no bf16 support in oneDNN (needs AVX512-BF16 or AMX); use "
        "f32");
  }
}

void add_on_invalid(Group group, text::OnInvalid* target, bool allow_skip) {
  group(
      "on-invalid",
      // "error" is OnInvalid::kError, the default.
      choice(target, "error",
             [allow_skip](const std::string& v) { return text::parse_on_invalid(v, allow_skip); }),
      allow_skip
          ? "a line with invalid UTF-8 or a NUL byte: error (exit 65 naming file and line), "
            "replace (U+FFFD) or skip (empty output line; not counted by learn-bpe and vocab)"
          : "a line with invalid UTF-8 or a NUL byte: error (exit 65 naming file and line) "
            "or replace (U+FFFD)");
}

}  // namespace heed::cli
