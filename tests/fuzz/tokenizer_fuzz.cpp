// Tokenizer and detokenizer. The first byte picks the configuration (mode, normalization,
// casing, BPE), the rest is the line. On well-formed UTF-8 the promises of tokenizer.h and
// docs/formats.md must hold: detokenize(tokenize(x)) == normalize(x), normalize is idempotent,
// tokenize(normalize(x)) == tokenize(x), tokens are non-empty and hold no space. Ill-formed
// input must not crash (tokenizer.h: no round-trip promise); after replace_invalid_utf8() it
// must round-trip like any other line. detokenize_line() takes any text.
#include <memory>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "heed/text/bpe.h"
#include "heed/text/tokenizer.h"
#include "heed/text/unicode.h"

using namespace heed;
using heed::fuzz::fuzz_fail;
using namespace heed::text;

namespace {

// Configuration k of 36: BPE when k is odd, casing k / 2 % 3 (none, lowercase, case marks),
// normalization k / 6 % 3 (NFC, NFKC, none), aggressive mode when k >= 18.
Tokenizer make_tokenizer(int k) {
  static const auto bpe = std::make_shared<const Bpe>(
      BpeCodes({{"l", "o"}, {"lo", "w</w>"}, {"e", "r</w>"}, {"é", "t"}, {"x", ".</w>"}}));
  static const Normalization forms[] = {Normalization::kNfc, Normalization::kNfkc,
                                        Normalization::kNone};
  TokenizerOptions o;
  o.mode = k >= 18 ? TokenizeMode::kAggressive : TokenizeMode::kConservative;
  o.normalization = forms[k / 6 % 3];
  o.lowercase = k / 2 % 3 == 1;
  o.case_feature = k / 2 % 3 == 2;
  return Tokenizer(o, k % 2 ? bpe : nullptr);
}

const std::vector<Tokenizer>& tokenizers() {
  static const std::vector<Tokenizer> all = [] {
    std::vector<Tokenizer> list;
    for (int k = 0; k < 36; ++k) list.push_back(make_tokenizer(k));
    return list;
  }();
  return all;
}

std::string describe(const Tokenizer& t) {
  return std::string(to_string(t.options().mode)) + "/" +
         std::string(to_string(t.options().normalization)) +
         (t.options().lowercase ? "/lowercase" : "") + (t.options().case_feature ? "/case" : "") +
         (t.bpe() ? "/bpe" : "");
}

void check_round_trip(const Tokenizer& t, const std::string& line) {
  const std::vector<std::string> tokens = t.tokenize(line);
  const std::string normalized = t.normalize(line);
  const std::string where = " (" + describe(t) + ")";
  if (t.detokenize(tokens) != normalized) {
    fuzz_fail("detokenize(tokenize(x)) != normalize(x)" + where);
  }
  if (t.normalize(normalized) != normalized) fuzz_fail("normalize is not idempotent" + where);
  if (t.tokenize(normalized) != tokens) fuzz_fail("tokenize(normalize(x)) != tokenize(x)" + where);
  for (const std::string& token : tokens) {
    if (token.empty() || token.find(' ') != std::string::npos) {
      fuzz_fail("empty token or token with a space: '" + token + "'" + where);
    }
  }
  if (t.detokenize_line(t.tokenize_line(line)) != normalized) {
    fuzz_fail("detokenize_line(tokenize_line(x)) != normalize(x)" + where);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& all = tokenizers();
  const Tokenizer& t = all[data[0] % all.size()];
  const std::string line(fuzz::as_text(data + 1, size - 1));
  if (find_invalid_utf8(line)) {
    fuzz::refuses_cleanly([&] {
      (void)t.detokenize(t.tokenize(line));
      (void)t.normalize(line);
      (void)t.detokenize_line(line);
    });
    check_round_trip(t, replace_invalid_utf8(line));
  } else {
    // Well-formed text has no reason to be refused: an exception escapes and is reported.
    check_round_trip(t, line);
    (void)t.detokenize_line(line);
  }
  return 0;
}
