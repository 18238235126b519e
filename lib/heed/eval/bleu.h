// BLEU as sacreBLEU 2.x computes it: the 13a tokenizer (mteval-v13a), n-grams up to 4 clipped
// by the references, corpus-level statistics, brevity penalty against the closest reference
// length, and sacreBLEU's smoothing methods. Scores are on sacreBLEU's 0–100 scale.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace heed::eval {

enum class BleuTokenizer { kNone, k13a, kIntl };
enum class BleuSmoothing { kNone, kExp, kFloor };

struct BleuOptions {
  BleuTokenizer tokenizer = BleuTokenizer::k13a;  // sacreBLEU's default
  bool lowercase = false;                         // -lc
  BleuSmoothing smoothing = BleuSmoothing::kExp;  // sacreBLEU's corpus default
  double floor = 0.1;                             // value of kFloor smoothing
  bool effective_order = false;                   // true for sentence-level BLEU
};

// sacreBLEU's tokenizer_13a, byte for byte (splits on Python's str.split() whitespace).
std::string tokenize_13a(std::string_view line);
// sacreBLEU's tokenizer_intl (mteval-v14 international): punctuation split from non-numbers,
// symbols split, by Unicode general category.
std::string tokenize_intl(std::string_view line);
BleuTokenizer parse_bleu_tokenizer(const std::string& name);  // none | 13a | intl
std::string to_string(BleuTokenizer tokenizer);

// The sufficient statistics of one or more segments; they add up over a corpus.
struct BleuStats {
  std::array<long long, 4> correct{};  // clipped n-gram matches, n = 1..4
  std::array<long long, 4> total{};    // n-grams in the hypothesis
  long long hyp_len = 0;
  long long ref_len = 0;  // closest reference length (ties: the shorter)
  BleuStats& operator+=(const BleuStats& other);
};
// The statistics as 10 numbers (correct 1–4, total 1–4, hyp_len, ref_len), the form the
// resampling of bootstrap.h and multi_run.h sums, and back.
std::vector<double> to_vector(const BleuStats& stats);
BleuStats bleu_stats_from_vector(const std::vector<double>& v);

struct BleuScore {
  double score = 0;                    // 0–100
  std::array<double, 4> precisions{};  // 0–100
  double brevity_penalty = 0;
  double ratio = 0;  // hyp_len / ref_len
  long long hyp_len = 0;
  long long ref_len = 0;
  // "BLEU = 35.12 66.7/41.2/28.6/20.0 (BP = 1.000 ratio = 1.020 hyp_len = 51 ref_len = 50)"
  std::string format() const;
};

// A segment's references, tokenized and their n-grams counted once for every hypothesis scored
// against them (a --system comparison scores every run of every system against the same ones):
// each reference's length in words, and each n-gram's highest count in any of them.
struct BleuReferences {
  std::vector<long long> lengths;
  std::array<std::map<std::string, int, std::less<>>, 4> max_counts;  // [n - 1]
};
BleuReferences bleu_references(const std::vector<std::string_view>& references,
                               const BleuOptions& options);

// Statistics of one hypothesis against its references (at least one).
BleuStats segment_stats(std::string_view hypothesis, const BleuReferences& references,
                        const BleuOptions& options);
BleuStats segment_stats(std::string_view hypothesis,
                        const std::vector<std::string_view>& references,
                        const BleuOptions& options);
BleuScore bleu_from_stats(const BleuStats& stats, const BleuOptions& options);

// Corpus BLEU: references[r][i] is reference r of segment i (all streams as long as hypotheses).
BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references,
                      const BleuOptions& options = {});
// Sentence BLEU as sacreBLEU's sentence_bleu: exp smoothing and effective order.
BleuScore sentence_bleu(std::string_view hypothesis,
                        const std::vector<std::string_view>& references, BleuOptions options = {});

// sacreBLEU-style signature: "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:heed-0.1.0".
std::string bleu_signature(const BleuOptions& options, int references);

}  // namespace heed::eval
