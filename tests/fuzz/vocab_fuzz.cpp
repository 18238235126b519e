// Vocabulary readers: Vocab::from_string (the form embedded in model files) and parse_counts
// (token<TAB>count files) followed by Vocab::from_counts. Promises (vocab.h): bad lines are
// refused with FormatError; from_string(to_string(v)) == v; id(token(i)) == i for every id;
// the specials keep ids 0-3.
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "heed/text/vocab.h"

using namespace heed;
using namespace heed::text;
using heed::fuzz::fuzz_fail;

namespace {

void check_vocab(const Vocab& vocab, const char* how) {
  const std::string prefix = std::string(how) + ": ";
  if (vocab.size() < Vocab::kSpecialCount) fuzz_fail(prefix + "fewer ids than specials");
  for (int32_t i = 0; i < Vocab::kSpecialCount; ++i) {
    if (vocab.token(i) != Vocab::kSpecials[i]) fuzz_fail(prefix + "special moved");
  }
  for (int32_t i = 0; i < vocab.size(); ++i) {
    if (vocab.id(vocab.token(i)) != i || !vocab.contains(vocab.token(i))) {
      fuzz_fail(prefix + "id(token(" + std::to_string(i) + ")) != " + std::to_string(i));
    }
  }
  if (!(Vocab::from_string(vocab.to_string(), "to_string") == vocab)) {
    fuzz_fail(prefix + "from_string(to_string(v)) != v");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  Vocab embedded;
  if (fuzz::refuses_cleanly([&] { embedded = Vocab::from_string(text, "vocab"); })) {
    check_vocab(embedded, "from_string");
  }
  CountList counts;
  if (fuzz::refuses_cleanly([&] { counts = parse_counts(text, "counts"); })) {
    // The cut-offs come from the input's length so that they vary with it.
    VocabOptions options;
    options.min_count = static_cast<long long>(size % 3);
    options.max_size = size % 5 == 0 ? 0 : 4 + static_cast<long long>(size % 7);
    Vocab vocab;
    if (fuzz::refuses_cleanly([&] { vocab = Vocab::from_counts(counts, options); })) {
      check_vocab(vocab, "from_counts");
      if (options.max_size > 0 && vocab.size() > options.max_size) fuzz_fail("max_size ignored");
    }
  }
  return 0;
}
