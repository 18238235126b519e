#include "heed/eval/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "heed/common/error.h"
#include "heed/common/version.h"
#include "heed/text/unicode.h"

namespace heed::eval {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The first rule of 13a: ASCII punctuation except ' , - . is set apart:
// [\{-\~\[-\` -\&\(-\+\:-\@\/]
bool is_13a_symbol(char c) {
  const auto b = static_cast<unsigned char>(c);
  return (b >= 0x7B && b <= 0x7E) || (b >= 0x5B && b <= 0x60) || (b >= 0x20 && b <= 0x26) ||
         (b >= 0x28 && b <= 0x2B) || (b >= 0x3A && b <= 0x40) || b == 0x2F;
}

// Python's str.isspace() for the code point starting at text[i]; sets its byte length.
bool python_space_at(std::string_view text, size_t i, size_t& length) {
  const auto b = static_cast<unsigned char>(text[i]);
  length = 1;
  if (b == ' ' || (b >= 0x09 && b <= 0x0D) || (b >= 0x1C && b <= 0x1F)) return true;
  if (b < 0x80) return false;
  auto byte = [&](size_t k) {
    return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0;
  };
  if (b == 0xC2) {  // U+0085 NEL, U+00A0 NBSP
    length = 2;
    if (byte(1) == 0x85 || byte(1) == 0xA0) return true;
    length = 1;
    return false;
  }
  if (b == 0xE1 && byte(1) == 0x9A && byte(2) == 0x80) {  // U+1680
    length = 3;
    return true;
  }
  if (b == 0xE2 && byte(1) == 0x80) {  // U+2000–U+200A, U+2028, U+2029, U+202F
    const unsigned c = byte(2);
    if ((c >= 0x80 && c <= 0x8A) || c == 0xA8 || c == 0xA9 || c == 0xAF) {
      length = 3;
      return true;
    }
  }
  if (b == 0xE2 && byte(1) == 0x81 && byte(2) == 0x9F) {  // U+205F
    length = 3;
    return true;
  }
  if (b == 0xE3 && byte(1) == 0x80 && byte(2) == 0x80) {  // U+3000
    length = 3;
    return true;
  }
  return false;
}

std::vector<std::string_view> split_python(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0, start = std::string_view::npos;
  while (i < text.size()) {
    size_t len = 1;
    if (python_space_at(text, i, len)) {
      if (start != std::string_view::npos) words.push_back(text.substr(start, i - start));
      start = std::string_view::npos;
    } else if (start == std::string_view::npos) {
      start = i;
    }
    i += len;
  }
  if (start != std::string_view::npos) words.push_back(text.substr(start));
  return words;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  size_t pos = 0;
  while ((pos = s.find(from, pos)) != std::string::npos) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
}

using NgramCounts = std::map<std::string_view, int>;

// n-grams of words (n = 1..4) as views into joined; joined keeps words separated by ' '.
void count_ngrams(const std::vector<std::string_view>& words, std::array<NgramCounts, 4>& counts) {
  for (size_t n = 1; n <= 4; ++n) {
    for (size_t i = 0; i + n <= words.size(); ++i) {
      const char* begin = words[i].data();
      const char* end = words[i + n - 1].data() + words[i + n - 1].size();
      ++counts[n - 1][std::string_view(begin, static_cast<size_t>(end - begin))];
    }
  }
}

double my_log(double x) {
  return x == 0.0 ? -9999999999.0 : std::log(x);
}

}  // namespace

std::string tokenize_13a(std::string_view input) {
  std::string line(input);
  replace_all(line, "<skipped>", "");
  replace_all(line, "-\n", "");
  std::replace(line.begin(), line.end(), '\n', ' ');
  if (line.find('&') != std::string::npos) {
    replace_all(line, "&quot;", "\"");
    replace_all(line, "&amp;", "&");
    replace_all(line, "&lt;", "<");
    replace_all(line, "&gt;", ">");
  }
  line = " " + line + " ";
  std::string a;
  a.reserve(line.size() * 2);
  for (char c : line) {
    if (is_13a_symbol(c)) {
      a += ' ';
      a += c;
      a += ' ';
    } else {
      a += c;
    }
  }
  // ([^0-9])([\.,]) → '\1 \2 '
  std::string b;
  b.reserve(a.size() * 2);
  for (size_t i = 0; i < a.size(); ++i) {
    if (i + 1 < a.size() && !is_digit(a[i]) && (a[i + 1] == '.' || a[i + 1] == ',')) {
      b += a[i];
      b += ' ';
      b += a[i + 1];
      b += ' ';
      ++i;
    } else {
      b += a[i];
    }
  }
  // ([\.,])([^0-9]) → ' \1 \2'
  std::string c;
  c.reserve(b.size() * 2);
  for (size_t i = 0; i < b.size(); ++i) {
    if (i + 1 < b.size() && (b[i] == '.' || b[i] == ',') && !is_digit(b[i + 1])) {
      c += ' ';
      c += b[i];
      c += ' ';
      c += b[i + 1];
      ++i;
    } else {
      c += b[i];
    }
  }
  // ([0-9])(-) → '\1 \2 '
  std::string d;
  d.reserve(c.size() * 2);
  for (size_t i = 0; i < c.size(); ++i) {
    if (i + 1 < c.size() && is_digit(c[i]) && c[i + 1] == '-') {
      d += c[i];
      d += " - ";
      ++i;
    } else {
      d += c[i];
    }
  }
  std::string out;
  for (std::string_view w : split_python(d)) {
    if (!out.empty()) out += ' ';
    out.append(w);
  }
  return out;
}

std::string tokenize_intl(std::string_view line) {
  // Code points with their classes, then the three rules of TokenizerV14International applied
  // in turn with Python's left-to-right, non-overlapping substitution:
  //   (\P{N})(\p{P}) → '\1 \2 ',  (\p{P})(\P{N}) → ' \1 \2',  (\p{S}) → ' \1 '.
  struct Cp {
    std::string_view text;
    char32_t c;
  };
  auto split = [](std::string_view s) {
    std::vector<Cp> cps;
    size_t pos = 0;
    while (pos < s.size()) {
      size_t start = pos;
      char32_t c = text::next_code_point(s, pos);
      cps.push_back({s.substr(start, pos - start), c});
    }
    return cps;
  };
  std::string current(line);
  for (int rule = 0; rule < 3; ++rule) {
    const std::vector<Cp> cps = split(current);
    std::string out;
    out.reserve(current.size() * 2);
    for (size_t i = 0; i < cps.size(); ++i) {
      const bool has_next = i + 1 < cps.size();
      if (rule == 0 && has_next && !text::is_number(cps[i].c) &&
          text::is_punctuation(cps[i + 1].c)) {
        out.append(cps[i].text).append(" ").append(cps[i + 1].text).append(" ");
        ++i;
      } else if (rule == 1 && has_next && text::is_punctuation(cps[i].c) &&
                 !text::is_number(cps[i + 1].c)) {
        out.append(" ").append(cps[i].text).append(" ").append(cps[i + 1].text);
        ++i;
      } else if (rule == 2 && text::is_symbol(cps[i].c)) {
        out.append(" ").append(cps[i].text).append(" ");
      } else {
        out.append(cps[i].text);
      }
    }
    current.swap(out);
  }
  std::string out;
  for (std::string_view w : split_python(current)) {
    if (!out.empty()) out += ' ';
    out.append(w);
  }
  return out;
}

BleuTokenizer parse_bleu_tokenizer(const std::string& name) {
  if (name == "13a") return BleuTokenizer::k13a;
  if (name == "intl") return BleuTokenizer::kIntl;
  if (name == "none") return BleuTokenizer::kNone;
  throw ConfigError("--tokenize: unknown value '" + name + "' (expected 13a, intl or none)");
}

std::string to_string(BleuTokenizer tokenizer) {
  switch (tokenizer) {
    case BleuTokenizer::k13a:
      return "13a";
    case BleuTokenizer::kIntl:
      return "intl";
    case BleuTokenizer::kNone:
      return "none";
  }
  return "none";
}

std::vector<double> to_vector(const BleuStats& stats) {
  std::vector<double> v;
  for (auto c : stats.correct) v.push_back(static_cast<double>(c));
  for (auto t : stats.total) v.push_back(static_cast<double>(t));
  v.push_back(static_cast<double>(stats.hyp_len));
  v.push_back(static_cast<double>(stats.ref_len));
  return v;
}

BleuStats bleu_stats_from_vector(const std::vector<double>& v) {
  if (v.size() != 10) throw InternalError("BLEU statistics are 10 numbers");
  BleuStats s;
  for (size_t n = 0; n < 4; ++n) {
    s.correct[n] = static_cast<long long>(v[n]);
    s.total[n] = static_cast<long long>(v[4 + n]);
  }
  s.hyp_len = static_cast<long long>(v[8]);
  s.ref_len = static_cast<long long>(v[9]);
  return s;
}

BleuStats& BleuStats::operator+=(const BleuStats& other) {
  for (size_t n = 0; n < 4; ++n) {
    correct[n] += other.correct[n];
    total[n] += other.total[n];
  }
  hyp_len += other.hyp_len;
  ref_len += other.ref_len;
  return *this;
}

namespace {

// The text as BLEU compares it: lowercased if asked, then tokenized.
std::string prepare_for_bleu(std::string_view text, const BleuOptions& options) {
  std::string s(text);
  if (options.lowercase) s = text::to_lower(s);  // full Unicode, as Python's str.lower()
  switch (options.tokenizer) {
    case BleuTokenizer::k13a:
      return tokenize_13a(s);
    case BleuTokenizer::kIntl:
      return tokenize_intl(s);
    case BleuTokenizer::kNone:
      break;
  }
  return s;
}

}  // namespace

BleuReferences bleu_references(const std::vector<std::string_view>& references,
                               const BleuOptions& options) {
  if (references.empty()) throw InternalError("BLEU needs at least one reference");
  BleuReferences prepared;
  for (auto reference : references) {
    const std::string ref = prepare_for_bleu(reference, options);
    const std::vector<std::string_view> words = split_python(ref);
    prepared.lengths.push_back(static_cast<long long>(words.size()));
    std::array<NgramCounts, 4> counts;
    count_ngrams(words, counts);
    for (size_t n = 0; n < 4; ++n) {
      for (const auto& [gram, count] : counts[n]) {
        auto it = prepared.max_counts[n].find(gram);
        if (it == prepared.max_counts[n].end()) {
          prepared.max_counts[n].emplace(std::string(gram), count);
        } else {
          it->second = std::max(it->second, count);
        }
      }
    }
  }
  return prepared;
}

BleuStats segment_stats(std::string_view hypothesis, const BleuReferences& references,
                        const BleuOptions& options) {
  if (references.lengths.empty()) throw InternalError("BLEU needs at least one reference");
  const std::string hyp = prepare_for_bleu(hypothesis, options);
  const std::vector<std::string_view> hyp_words = split_python(hyp);
  std::array<NgramCounts, 4> hyp_counts;
  count_ngrams(hyp_words, hyp_counts);
  BleuStats stats;
  stats.hyp_len = static_cast<long long>(hyp_words.size());
  long long closest = -1;
  for (const long long len : references.lengths) {
    // Closest reference length; on a tie the shorter (sacreBLEU's extract_reference_info).
    const long long diff = std::llabs(len - stats.hyp_len);
    if (closest < 0 || diff < std::llabs(closest - stats.hyp_len) ||
        (diff == std::llabs(closest - stats.hyp_len) && len < closest)) {
      closest = len;
    }
  }
  stats.ref_len = closest;
  for (size_t n = 0; n < 4; ++n) {
    stats.total[n] = std::max<long long>(0, stats.hyp_len - static_cast<long long>(n));
    for (const auto& [gram, count] : hyp_counts[n]) {
      auto it = references.max_counts[n].find(gram);
      if (it != references.max_counts[n].end()) stats.correct[n] += std::min(count, it->second);
    }
  }
  return stats;
}

BleuStats segment_stats(std::string_view hypothesis,
                        const std::vector<std::string_view>& references,
                        const BleuOptions& options) {
  return segment_stats(hypothesis, bleu_references(references, options), options);
}

BleuScore bleu_from_stats(const BleuStats& stats, const BleuOptions& options) {
  BleuScore s;
  s.hyp_len = stats.hyp_len;
  s.ref_len = stats.ref_len;
  s.ratio = stats.ref_len > 0
                ? static_cast<double>(stats.hyp_len) / static_cast<double>(stats.ref_len)
                : 0.0;
  double smooth_mteval = 1.0;
  int eff_order = 4;
  for (int n = 1; n <= 4; ++n) {
    const size_t i = static_cast<size_t>(n - 1);
    if (stats.total[i] == 0) break;
    if (options.effective_order) eff_order = n;
    if (stats.correct[i] == 0) {
      if (options.smoothing == BleuSmoothing::kExp) {
        smooth_mteval *= 2;
        s.precisions[i] = 100.0 / (smooth_mteval * static_cast<double>(stats.total[i]));
      } else if (options.smoothing == BleuSmoothing::kFloor) {
        s.precisions[i] = 100.0 * options.floor / static_cast<double>(stats.total[i]);
      }
    } else {
      s.precisions[i] =
          100.0 * static_cast<double>(stats.correct[i]) / static_cast<double>(stats.total[i]);
    }
  }
  if (stats.hyp_len == 0) {
    s.brevity_penalty = 0.0;
    return s;
  }
  s.brevity_penalty =
      stats.hyp_len < stats.ref_len
          ? std::exp(1.0 - static_cast<double>(stats.ref_len) / static_cast<double>(stats.hyp_len))
          : 1.0;
  double sum = 0.0;
  for (int n = 0; n < eff_order; ++n) sum += my_log(s.precisions[static_cast<size_t>(n)]);
  s.score = s.brevity_penalty * std::exp(sum / eff_order);
  return s;
}

BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references,
                      const BleuOptions& options) {
  if (references.empty()) throw InternalError("BLEU needs at least one reference stream");
  for (const auto& stream : references) {
    if (stream.size() != hypotheses.size()) {
      throw DataError("BLEU: " + std::to_string(hypotheses.size()) + " hypotheses but " +
                      std::to_string(stream.size()) + " references");
    }
  }
  BleuStats total;
  std::vector<std::string_view> refs(references.size());
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    for (size_t r = 0; r < references.size(); ++r) refs[r] = references[r][i];
    total += segment_stats(hypotheses[i], refs, options);
  }
  return bleu_from_stats(total, options);
}

BleuScore sentence_bleu(std::string_view hypothesis,
                        const std::vector<std::string_view>& references, BleuOptions options) {
  options.effective_order = true;
  return bleu_from_stats(segment_stats(hypothesis, references, options), options);
}

std::string BleuScore::format() const {
  char buffer[256];
  std::snprintf(
      buffer, sizeof buffer,
      "BLEU = %.2f %.1f/%.1f/%.1f/%.1f (BP = %.3f ratio = %.3f hyp_len = %lld ref_len = %lld)",
      score, precisions[0], precisions[1], precisions[2], precisions[3], brevity_penalty, ratio,
      hyp_len, ref_len);
  return buffer;
}

std::string bleu_signature(const BleuOptions& options, int references) {
  const char* smooth = options.smoothing == BleuSmoothing::kExp     ? "exp"
                       : options.smoothing == BleuSmoothing::kFloor ? "floor"
                                                                    : "none";
  return "nrefs:" + std::to_string(references) + "|case:" + (options.lowercase ? "lc" : "mixed") +
         "|eff:" + (options.effective_order ? "yes" : "no") +
         "|tok:" + to_string(options.tokenizer) + "|smooth:" + smooth + "|version:heed-" +
         HEED_VERSION;
}

}  // namespace heed::eval
