#include "heed/train/bpe_dropout.h"

#include <optional>

#include "heed/common/check.h"
#include "heed/common/error.h"
#include "heed/common/parallel.h"
#include "heed/common/rng.h"
#include "heed/common/strings.h"
#include "heed/model/tokenizer_record.h"
#include "heed/text/markers.h"

namespace heed::train {
namespace {

// splitmix64's finaliser: spreads (epoch, sentence, side) over the 64-bit stream number.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The random stream of one side of one sentence in one epoch: nothing else.
Rng sentence_rng(uint64_t seed, int64_t epoch, size_t index, Side side) {
  constexpr uint64_t kTag = 0xb9ed0000'00000000ull;  // apart from the other streams of a seed
  const uint64_t stream =
      mix(kTag ^ mix(static_cast<uint64_t>(epoch) ^
                     mix(2 * static_cast<uint64_t>(index) + (side == Side::kTarget ? 1 : 0))));
  return make_rng(seed, stream);
}

std::vector<int32_t> to_ids(const std::vector<std::string>& tokens, const text::Vocab& vocab) {
  std::vector<int32_t> ids;
  ids.reserve(tokens.size());
  for (const auto& t : tokens) ids.push_back(static_cast<int32_t>(vocab.id(t)));
  return ids;
}

}  // namespace

void BpeDropoutOptions::validate() const {
  if (!(p > 0.f && p < 1.f)) {
    throw ConfigError("--bpe-dropout must be in (0, 1), not " + std::to_string(p));
  }
  if (max_length < 0) throw ConfigError("--max-length must not be negative");
}

BpeDropout::BpeDropout(const std::map<std::string, std::string>& extra,
                       const BpeDropoutOptions& options)
    : options_(options) {
  options_.validate();
  const std::optional<model::TokenizerRecord> record = model::recorded_tokenizer(extra);
  if (!record || record->bpe_codes.empty()) {
    throw ConfigError("--bpe-dropout needs the BPE codes (--bpe CODES)");
  }
  plain_ = model::make_tokenizer(*record, "--bpe");
  text::BpeOptions dropout;
  dropout.dropout = options_.p;
  dropout_ = model::make_tokenizer(*record, "--bpe", dropout);
  unsegmented_ = std::make_unique<text::Tokenizer>(plain_->options());
}

BpeDropout::~BpeDropout() = default;

std::string BpeDropout::text_of(const std::vector<std::string>& tokens, const std::string& name,
                                long long line_number) const {
  std::string text = unsegmented_->detokenize(tokens);
  const std::vector<std::string> expected = unsegmented_->tokenize(text);
  if (expected == tokens) return text;
  size_t k = 0;
  while (k < tokens.size() && k < expected.size() && tokens[k] == expected[k]) ++k;
  const std::string given = k < tokens.size() ? tokens[k] : std::string("(end of line)");
  const std::string wanted = k < expected.size() ? expected[k] : std::string("(end of line)");
  // A BPE piece that does not end its word carries a joiner after it, where the unsegmented
  // token is the whole word: "hel￭" for "hello".
  const std::string_view word = text::bpe_word_of(given);
  const bool continuation = ends_with(given, text::kJoiner) && !word.empty() &&
                            word.size() < wanted.size() &&
                            wanted.find(std::string(word)) != std::string::npos;
  const std::string what =
      continuation ? "token " + std::to_string(k + 1) + " '" + given +
                         "' is a BPE piece (continuation mark; unsegmented: '" + wanted + "')"
                   : "token " + std::to_string(k + 1) + " '" + given +
                         "' is not what the tokenizer writes there ('" + wanted + "')";
  throw DataError(at_line(name, line_number,
                          what + ": with --bpe-dropout give the text tokenized but not "
                                 "BPE-segmented (heed-tokenize without --bpe, with the tokenizer "
                                 "options given here)"));
}

std::vector<std::string> BpeDropout::plain(std::string_view text) const {
  return plain_->tokenize(text);
}

std::vector<std::string> BpeDropout::sample(std::string_view text, int64_t epoch, size_t index,
                                            Side side, bool* plain_kept) const {
  Rng rng = sentence_rng(options_.seed, epoch, index, side);
  std::vector<std::string> tokens = dropout_->tokenize(text, &rng);
  const bool too_long =
      options_.max_length > 0 && tokens.size() > static_cast<size_t>(options_.max_length);
  if (plain_kept) *plain_kept = too_long;
  return too_long ? plain(text) : tokens;
}

void BpeDropout::add_possible_tokens(std::string_view text, text::WordCounts& counts) const {
  std::vector<std::string> tokens;
  dropout_->append_possible_tokens(text, tokens);
  for (std::string& token : tokens) counts.emplace(std::move(token), 0);
}

void BpeDropout::set_pairs(std::vector<std::string> src, std::vector<std::string> tgt) {
  HEED_CHECK(src.size() == tgt.size(), "BPE-dropout: as many sources as targets");
  src_ = std::move(src);
  tgt_ = std::move(tgt);
}

std::vector<model::Example> BpeDropout::epoch(int64_t epoch, const text::Vocab& src_vocab,
                                              const text::Vocab& tgt_vocab, int threads,
                                              long long* plain_kept) const {
  std::vector<model::Example> examples(src_.size());
  std::vector<uint8_t> kept(src_.size(), 0);
  parallel_for_chunks(src_.size(), 256, threads, [&](size_t begin, size_t end, int) {
    for (size_t i = begin; i < end; ++i) {
      bool src_kept = false, tgt_kept = false;
      examples[i].src = to_ids(sample(src_[i], epoch, i, Side::kSource, &src_kept), src_vocab);
      examples[i].tgt = to_ids(sample(tgt_[i], epoch, i, Side::kTarget, &tgt_kept), tgt_vocab);
      kept[i] = static_cast<uint8_t>(int(src_kept) + int(tgt_kept));
    }
  });
  if (plain_kept) {
    *plain_kept = 0;
    for (uint8_t k : kept) *plain_kept += k;
  }
  return examples;
}

}  // namespace heed::train
