#include "heed/eval/chrf.h"

#include <algorithm>

#include "heed/common/error.h"
#include "heed/common/version.h"
#include "heed/text/unicode.h"

namespace heed::eval {

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

CharNgrams::CharNgrams(std::string_view text, const ChrfOptions& options) {
  const std::string prepared = options.lowercase ? text::to_lower(text) : std::string(text);
  // The text without whitespace (Python's str.split()) unless kept, and where each of its code
  // points begins: an n-gram is then a run of bytes of text_.
  std::vector<size_t> starts;
  text_.reserve(prepared.size());
  size_t pos = 0;
  while (pos < prepared.size()) {
    const size_t start = pos;
    const char32_t c = text::next_code_point(prepared, pos);
    if (!options.whitespace && (text::is_white_space(c) || (c >= 0x1C && c <= 0x1F))) continue;
    starts.push_back(text_.size());
    text_.append(prepared, start, pos - start);
  }
  starts.push_back(text_.size());
  const size_t chars = starts.size() - 1;
  const auto order = static_cast<size_t>(options.char_order);
  grams_.resize(order);
  totals_.assign(order, 0.0);
  std::vector<Gram> all;
  for (size_t n = 1; n <= order && n <= chars; ++n) {
    all.clear();
    for (size_t i = 0; i + n <= chars; ++i)
      all.push_back({starts[i], starts[i + n] - starts[i], 1});
    std::sort(all.begin(), all.end(),
              [this](const Gram& a, const Gram& b) { return view(a) < view(b); });
    auto& distinct = grams_[n - 1];
    for (const Gram& g : all) {
      if (!distinct.empty() && view(distinct.back()) == view(g)) {
        ++distinct.back().count;
      } else {
        distinct.push_back(g);
      }
    }
    totals_[n - 1] = static_cast<double>(all.size());
  }
}

double CharNgrams::matches(const CharNgrams& other, size_t n) const {
  // Both lists sorted: one merge, each shared n-gram counted as often as the rarer side has it.
  const auto& a = grams_[n - 1];
  const auto& b = other.grams_[n - 1];
  double match = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int order = view(a[i]).compare(other.view(b[j]));
    if (order < 0) {
      ++i;
    } else if (order > 0) {
      ++j;
    } else {
      match += std::min(a[i++].count, b[j++].count);
    }
  }
  return match;
}

ChrfReferences chrf_references(const std::vector<std::string_view>& references,
                               const ChrfOptions& options) {
  ChrfReferences prepared;
  prepared.texts.reserve(references.size());
  for (auto reference : references) prepared.texts.emplace_back(reference, options);
  return prepared;
}

ChrfStats chrf_segment_stats(std::string_view hypothesis, const ChrfReferences& references,
                             const ChrfOptions& options) {
  if (references.texts.empty()) throw InternalError("chrF needs at least one reference");
  const CharNgrams hyp(hypothesis, options);
  ChrfStats best;
  double best_f = -1.0;
  for (const CharNgrams& ref : references.texts) {
    if (ref.orders() != hyp.orders()) {
      throw InternalError("chrF: references prepared with another character order");
    }
    ChrfStats stats;
    for (size_t n = 1; n <= hyp.orders(); ++n) {
      stats.insert(stats.end(), {hyp.total(n), ref.total(n), hyp.matches(ref, n)});
    }
    const double f = chrf_from_stats(stats, options);
    if (f > best_f) {  // the first reference wins ties, as in sacreBLEU
      best_f = f;
      best = std::move(stats);
    }
  }
  return best;
}

ChrfStats chrf_segment_stats(std::string_view hypothesis,
                             const std::vector<std::string_view>& references,
                             const ChrfOptions& options) {
  return chrf_segment_stats(hypothesis, chrf_references(references, options), options);
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
