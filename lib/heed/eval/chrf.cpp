#include "heed/eval/chrf.h"

#include <algorithm>
#include <unordered_map>

#include "heed/common/error.h"
#include "heed/common/version.h"
#include "heed/text/unicode.h"

namespace heed::eval {
namespace {

// Code points of text, whitespace (Python's str.split()) removed unless kept.
std::vector<std::string_view> characters(std::string_view text, bool keep_whitespace) {
  std::vector<std::string_view> chars;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t start = pos;
    const char32_t c = text::next_code_point(text, pos);
    if (!keep_whitespace && (text::is_white_space(c) || (c >= 0x1C && c <= 0x1F))) continue;
    chars.push_back(text.substr(start, pos - start));
  }
  return chars;
}

using Counts = std::unordered_map<std::string, int>;

std::vector<Counts> char_ngrams(std::string_view text, const ChrfOptions& options) {
  const auto chars = characters(text, options.whitespace);
  std::vector<Counts> out(static_cast<size_t>(options.char_order));
  std::string gram;
  for (size_t n = 1; n <= out.size(); ++n) {
    for (size_t i = 0; i + n <= chars.size(); ++i) {
      gram.clear();
      for (size_t k = 0; k < n; ++k) gram.append(chars[i + k]);
      ++out[n - 1][gram];
    }
  }
  return out;
}

double total(const Counts& counts) {
  double sum = 0;
  for (const auto& [gram, count] : counts) sum += count;
  return sum;
}

}  // namespace

double chrf_from_stats(const ChrfStats& stats, const ChrfOptions& options) {
  const double factor = options.beta * options.beta;
  double avg_prec = 0, avg_rec = 0;
  int effective_order = 0;
  for (size_t i = 0; i + 2 < stats.size(); i += 3) {
    const double n_hyp = stats[i], n_ref = stats[i + 1], n_match = stats[i + 2];
    if (n_hyp > 0 && n_ref > 0) {
      avg_prec += n_match / n_hyp;
      avg_rec += n_match / n_ref;
      ++effective_order;
    }
  }
  if (effective_order == 0) return 0.0;
  avg_prec /= effective_order;
  avg_rec /= effective_order;
  if (avg_prec + avg_rec == 0.0) return 0.0;
  return 100.0 * (1 + factor) * avg_prec * avg_rec / (factor * avg_prec + avg_rec);
}

ChrfStats chrf_segment_stats(std::string_view hypothesis,
                             const std::vector<std::string_view>& references,
                             const ChrfOptions& options) {
  if (references.empty()) throw InternalError("chrF needs at least one reference");
  auto prepare = [&options](std::string_view s) {
    return options.lowercase ? text::to_lower(s) : std::string(s);
  };
  const auto hyp = char_ngrams(prepare(hypothesis), options);
  ChrfStats best;
  double best_f = -1.0;
  for (auto reference : references) {
    const auto ref = char_ngrams(prepare(reference), options);
    ChrfStats stats;
    for (size_t n = 0; n < hyp.size(); ++n) {
      double match = 0;
      for (const auto& [gram, count] : hyp[n]) {
        auto it = ref[n].find(gram);
        if (it != ref[n].end()) match += std::min(count, it->second);
      }
      stats.insert(stats.end(), {total(hyp[n]), total(ref[n]), match});
    }
    const double f = chrf_from_stats(stats, options);
    if (f > best_f) {  // the first reference wins ties, as in sacreBLEU
      best_f = f;
      best = std::move(stats);
    }
  }
  return best;
}

double corpus_chrf(const std::vector<std::string>& hypotheses,
                   const std::vector<std::vector<std::string>>& references,
                   const ChrfOptions& options) {
  ChrfStats sum(static_cast<size_t>(3 * options.char_order), 0.0);
  std::vector<std::string_view> refs(references.size());
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    for (size_t r = 0; r < references.size(); ++r) {
      if (references[r].size() != hypotheses.size()) {
        throw DataError("chrF: " + std::to_string(hypotheses.size()) + " hypotheses but " +
                        std::to_string(references[r].size()) + " references");
      }
      refs[r] = references[r][i];
    }
    const ChrfStats s = chrf_segment_stats(hypotheses[i], refs, options);
    for (size_t k = 0; k < sum.size(); ++k) sum[k] += s[k];
  }
  return chrf_from_stats(sum, options);
}

std::string chrf_signature(const ChrfOptions& options, int references) {
  return "nrefs:" + std::to_string(references) + "|case:" + (options.lowercase ? "lc" : "mixed") +
         "|eff:yes|nc:" + std::to_string(options.char_order) +
         "|nw:0|space:" + (options.whitespace ? "yes" : "no") + "|version:heed-" + HEED_VERSION;
}

}  // namespace heed::eval
