#include "heed/eval/chrf.h"

#include <algorithm>
#include <cstdio>

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
  const auto is_space = [](char32_t c) {
    return text::is_white_space(c) || (c >= 0x1C && c <= 0x1F);
  };
  std::vector<size_t> starts, ends;
  text_.reserve(2 * prepared.size() + 1);
  size_t pos = 0;
  while (pos < prepared.size()) {
    const size_t start = pos;
    const char32_t c = text::next_code_point(prepared, pos);
    if (!options.whitespace && is_space(c)) continue;
    starts.push_back(text_.size());
    text_.append(prepared, start, pos - start);
    ends.push_back(text_.size());
  }
  count(starts, ends, static_cast<size_t>(options.char_order));
  if (options.word_order <= 0) return;
  // The words after the characters, one space apart (a word holds none, so equal bytes are
  // equal words): sacreBLEU's _remove_punctuation.
  static const std::string_view kPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
  const auto punctuation = [](char32_t c) {
    return c < 0x80 && kPunctuation.find(char(c)) != std::string_view::npos;
  };
  starts.clear();
  ends.clear();
  const auto add_word = [&](size_t begin, size_t end) {
    text_ += ' ';
    starts.push_back(text_.size());
    text_.append(prepared, begin, end - begin);
    ends.push_back(text_.size());
  };
  const auto first_is_punctuation = [&](size_t at) {
    return punctuation(text::next_code_point(prepared, at));
  };
  std::vector<size_t> chars;  // where the current word's code points begin
  const auto end_word = [&](size_t end) {
    if (chars.size() > 1 && first_is_punctuation(chars.back())) {
      add_word(chars.front(), chars.back());
      add_word(chars.back(), end);
    } else if (chars.size() > 1 && first_is_punctuation(chars.front())) {
      add_word(chars.front(), chars[1]);
      add_word(chars[1], end);
    } else if (!chars.empty()) {
      add_word(chars.front(), end);
    }
    chars.clear();
  };
  pos = 0;
  while (pos < prepared.size()) {
    const size_t at = pos;
    if (is_space(text::next_code_point(prepared, pos))) {
      end_word(at);
    } else {
      chars.push_back(at);
    }
  }
  end_word(prepared.size());
  count(starts, ends, static_cast<size_t>(options.word_order));
}

void CharNgrams::count(const std::vector<size_t>& starts, const std::vector<size_t>& ends,
                       size_t order) {
  const size_t units = starts.size();
  std::vector<Gram> all;
  for (size_t n = 1; n <= order; ++n) {
    auto& distinct = grams_.emplace_back();
    all.clear();
    for (size_t i = 0; i + n <= units; ++i) {
      all.push_back({starts[i], ends[i + n - 1] - starts[i], 1});
    }
    std::sort(all.begin(), all.end(),
              [this](const Gram& a, const Gram& b) { return view(a) < view(b); });
    for (const Gram& g : all) {
      if (!distinct.empty() && view(distinct.back()) == view(g)) {
        ++distinct.back().count;
      } else {
        distinct.push_back(g);
      }
    }
    totals_.push_back(static_cast<double>(all.size()));
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
      // A hypothesis's n-grams of an order the reference lacks are not counted (sacreBLEU).
      const double hyp_total = ref.total(n) > 0 ? hyp.total(n) : 0.0;
      stats.insert(stats.end(), {hyp_total, ref.total(n), hyp.matches(ref, n)});
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
  ChrfStats sum(static_cast<size_t>(3 * (options.char_order + options.word_order)), 0.0);
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
         "|nw:" + std::to_string(options.word_order) +
         "|space:" + (options.whitespace ? "yes" : "no") + "|version:heed-" + HEED_VERSION;
}

std::string chrf_name(const ChrfOptions& options) {
  char beta[32];
  std::snprintf(beta, sizeof beta, "%g", options.beta);
  return "chrF" + std::string(beta) + std::string(size_t(std::max(0, options.word_order)), '+');
}

}  // namespace heed::eval
