#include "heed/align/agreement.h"

#include <algorithm>
#include <cmath>

#include "heed/common/error.h"

namespace heed::align {

AgreementCombine parse_agreement_combine(const std::string& name) {
  if (name == "mean") return AgreementCombine::kMean;
  if (name == "geometric") return AgreementCombine::kGeometric;
  throw ConfigError("--combine: unknown value '" + name + "' (expected mean or geometric)");
}

void AgreementOptions::validate() const {
  if (!(threshold > 0.f && threshold <= 1.f)) {
    throw ConfigError("--threshold must be in (0, 1], got " + std::to_string(threshold));
  }
}

namespace {

int words_of(const std::vector<int>& token_words) {
  return token_words.empty() ? 0 : *std::max_element(token_words.begin(), token_words.end()) + 1;
}

}  // namespace

std::vector<std::vector<double>> word_attention(const SoftAlignment& pair) {
  const int sources = words_of(pair.source_words), targets = words_of(pair.target_words);
  std::vector<std::vector<double>> m(size_t(targets), std::vector<double>(size_t(sources), 0.0));
  std::vector<int> rows(size_t(targets), 0);
  for (size_t t = 0; t < pair.target_words.size(); ++t) {
    std::vector<double>& row = m[size_t(pair.target_words[t])];
    for (size_t s = 0; s < pair.source_words.size(); ++s) {
      row[size_t(pair.source_words[s])] += double(pair.weights[t][s]);
    }
    ++rows[size_t(pair.target_words[t])];
  }
  for (size_t w = 0; w < m.size(); ++w) {
    for (double& v : m[w]) v /= double(std::max(rows[w], 1));
  }
  return m;
}

Alignment agree(const SoftAlignment& forward, const SoftAlignment& reverse,
                const AgreementOptions& options) {
  const std::vector<std::vector<double>> f = word_attention(forward);  // [tgt][src]
  const std::vector<std::vector<double>> r = word_attention(reverse);  // [src][tgt]
  const size_t targets = f.size(), sources = targets ? f[0].size() : words_of(forward.source_words);
  const size_t reverse_sources = r.empty() ? size_t(words_of(reverse.source_words)) : r[0].size();
  if (r.size() != sources || reverse_sources != targets) {
    throw DataError("the reverse model's pair has " + std::to_string(reverse_sources) +
                    " source and " + std::to_string(r.size()) +
                    " target words, the forward one's " + std::to_string(sources) + " and " +
                    std::to_string(targets) + ": not the same pair the other way round");
  }
  Alignment links;
  for (size_t j = 0; j < targets; ++j) {
    for (size_t i = 0; i < sources; ++i) {
      const double combined = options.combine == AgreementCombine::kMean
                                  ? 0.5 * (f[j][i] + r[i][j])
                                  : std::sqrt(f[j][i] * r[i][j]);
      if (combined >= double(options.threshold)) links.push_back({int(i), int(j)});
    }
  }
  normalize(links);
  return links;
}

}  // namespace heed::align
