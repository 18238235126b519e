#include "heed/align/alignment_writer.h"

#include <algorithm>
#include <cstdio>

#include "heed/common/check.h"
#include "heed/common/error.h"

namespace heed::align {
namespace {

const SoftAlignment& attention_of(const SentenceAlignment& sentence, const char* format) {
  HEED_CHECK(sentence.attention != nullptr, std::string(format) + " writes the attention");
  return *sentence.attention;
}

class PharaohWriter final : public AlignmentWriter {
 public:
  void write(const SentenceAlignment& sentence, std::string& out) override {
    out += to_pharaoh(sentence.links);
  }
};

class TalpWriter final : public AlignmentWriter {
 public:
  void write(const SentenceAlignment& sentence, std::string& out) override {
    out += to_talp({sentence.links, sentence.possible});
  }
};

// heed-translate's inline weights: nothing reads them back but people and the frozen-model test.
class SoftRowsWriter final : public AlignmentWriter {
 public:
  void write(const SentenceAlignment& sentence, std::string& out) override {
    const SoftAlignment& pair = attention_of(sentence, "soft");
    // One row per target token; the </s> row is left out (it aligns no target word).
    const size_t rows = std::min(pair.target.size(), pair.weights.size());
    char number[16];
    for (size_t t = 0; t < rows; ++t) {
      if (t) out += ' ';
      for (size_t s = 0; s < pair.source.size(); ++s) {
        std::snprintf(number, sizeof number, s ? ",%.3f" : "%.3f", double(pair.weights[t][s]));
        out += number;
      }
    }
  }
};

class JsonLinesWriter final : public AlignmentWriter {
 public:
  void write(const SentenceAlignment& sentence, std::string& out) override {
    out += to_json_line(attention_of(sentence, "jsonl"));
  }
};

// "a, b or c".
std::string or_list(const std::vector<std::string>& items) {
  std::string list;
  for (size_t i = 0; i < items.size(); ++i) {
    list += (i ? (i + 1 == items.size() ? " or " : ", ") : "") + items[i];
  }
  return list;
}

template <class Writer>
std::unique_ptr<AlignmentWriter> make() {
  return std::make_unique<Writer>();
}

}  // namespace

const std::vector<AlignmentFormat>& alignment_formats() {
  static const std::vector<AlignmentFormat> formats = {
      {"pharaoh", "zero-based word links 'i-j', source first, as fast_align writes them",
       AlignmentInput::kLinks, make<PharaohWriter>},
      {"talp", "one-based word links 'i-j', as gold sets are written", AlignmentInput::kLinks,
       make<TalpWriter>},
      {"soft",
       "one row of weights per target token, space-separated, the weights over the source "
       "tokens comma-separated",
       AlignmentInput::kWeights, make<SoftRowsWriter>},
      {"jsonl",
       "a JSON object with the tokens and every row of weights, as heed-align --soft writes it",
       AlignmentInput::kForcedAttention, make<JsonLinesWriter>},
  };
  return formats;
}

const AlignmentFormat& alignment_format(const std::string& name) {
  const std::vector<AlignmentFormat>& formats = alignment_formats();
  const auto found = std::find_if(formats.begin(), formats.end(),
                                  [&](const AlignmentFormat& f) { return f.name == name; });
  if (found != formats.end()) return *found;
  throw ConfigError("unknown alignment format '" + name + "' (expected " +
                    or_list(alignment_format_names(false)) + ")");
}

std::vector<std::string> alignment_format_names(bool translations) {
  std::vector<std::string> names;
  for (const AlignmentFormat& f : alignment_formats()) {
    if (!translations || f.input != AlignmentInput::kForcedAttention) names.push_back(f.name);
  }
  return names;
}

std::string describe_alignment_formats(bool translations) {
  std::vector<std::string> described;
  for (const std::string& name : alignment_format_names(translations)) {
    described.push_back(name + " (" + alignment_format(name).summary + ")");
  }
  return or_list(described);
}

SentenceAlignment from_attention(const SoftAlignment& pair, AlignmentInput input,
                                 const ExtractOptions& links) {
  SentenceAlignment sentence;
  sentence.attention = &pair;
  if (input == AlignmentInput::kLinks) {
    sentence.links = extract_links(pair.weights, pair.source_words, pair.target_words, links);
  }
  return sentence;
}

}  // namespace heed::align
