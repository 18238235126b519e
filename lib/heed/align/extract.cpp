#include "heed/align/extract.h"

#include <algorithm>

#include "heed/common/error.h"

namespace heed::align {

ExtractMethod parse_extract_method(const std::string& name) {
  if (name == "argmax") return ExtractMethod::kArgmax;
  if (name == "threshold") return ExtractMethod::kThreshold;
  if (name == "shift") return ExtractMethod::kShift;
  throw ConfigError("unknown alignment method '" + name +
                    "' (expected argmax, threshold or shift)");
}

void ExtractOptions::validate() const {
  if (method == ExtractMethod::kThreshold && !(threshold > 0.f && threshold <= 1.f)) {
    throw ConfigError("the alignment threshold must be in (0, 1], not " +
                      std::to_string(threshold));
  }
}

Alignment extract_links(const std::vector<std::vector<float>>& weights,
                        const std::vector<int>& source_words, const std::vector<int>& target_words,
                        const ExtractOptions& options) {
  Alignment links;
  const size_t sources = source_words.size();
  if (sources == 0) return links;
  const size_t shift = options.method == ExtractMethod::kShift ? 1 : 0;
  for (size_t j = 0; j < target_words.size() && j + shift < weights.size(); ++j) {
    const std::vector<float>& row = weights[j + shift];
    if (options.method == ExtractMethod::kThreshold) {
      for (size_t s = 0; s < sources && s < row.size(); ++s) {
        if (row[s] >= options.threshold) links.push_back({source_words[s], target_words[j]});
      }
    } else {
      const auto end = row.begin() + long(std::min(sources, row.size()));
      const size_t best = size_t(std::max_element(row.begin(), end) - row.begin());
      if (best < sources) links.push_back({source_words[best], target_words[j]});
    }
  }
  normalize(links);
  return links;
}

}  // namespace heed::align
