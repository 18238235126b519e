// The reparameterised IBM Model 2 of Dyer, Chahuneau & Smith (2013), the model of fast_align:
//
//   p(f, a | e) = Π_j p(a_j | j, m, n) · t(f_j | e_{a_j})
//
// for a sentence e of n words (plus the null word e_0) that generates f, m words. Without
// favor_diagonal every a_j is uniform over the n+1 choices (IBM Model 1). With it the null word
// takes a fixed share p0 and the real words share the rest by their closeness to the diagonal:
//
//   p(a_j = i | j, m, n) = (1 − p0) · exp(λ h(i, j, m, n)) / Z_λ(j, m, n),  h = −|i/n − j/m|
//
// (1-based i and j), where Z_λ is a sum of two geometric series (diagonal_normalizer). The
// tension λ can be fitted by gradient steps between EM iterations; t(f | e) is re-estimated by
// EM, optionally as the mean-field posterior under a symmetric Dirichlet prior α on each
// t(· | e) (variational Bayes: t = exp(ψ(c + α) − ψ(Σ_f (c + α)))), which keeps rare words
// from soaking up alignments. Defaults and schedules are those of fast_align; its tension
// gradient, though, takes Z of the swapped lengths, the feature of position j − 1 and weights
// the model's feature by every word, null-aligned or not, where this one is by default the exact
// gradient of the expected log-likelihood (so λ is fitted higher: 12 where fast_align reaches 5).
// TensionGradient::fast_align follows fast_align's formulas instead, to reproduce its results.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "heed/align/alignment.h"

namespace heed::align {

// Sentence pairs as word ids, each side with a vocabulary of its own.
class WordCorpus {
 public:
  // Appends one pair; words are separated by runs of ASCII spaces and tabs. Either side may be
  // empty: such a pair takes no part in training and gets no links.
  void add(std::string_view source, std::string_view target);

  size_t size() const { return source_begin_.size() - 1; }
  // The words of pair k, as ids into the side's vocabulary.
  const std::uint32_t* source(size_t k) const { return source_words_.data() + source_begin_[k]; }
  const std::uint32_t* target(size_t k) const { return target_words_.data() + target_begin_[k]; }
  int source_length(size_t k) const {
    return static_cast<int>(source_begin_[k + 1] - source_begin_[k]);
  }
  int target_length(size_t k) const {
    return static_cast<int>(target_begin_[k + 1] - target_begin_[k]);
  }
  size_t source_vocabulary_size() const { return source_ids_.size(); }
  size_t target_vocabulary_size() const { return target_ids_.size(); }
  // The id of a word, or -1 when the side never had it.
  long source_id(std::string_view word) const;
  long target_id(std::string_view word) const;
  // The word of an id (0 <= id < the side's vocabulary size).
  const std::string& source_word(std::uint32_t id) const { return source_words_by_id_[id]; }
  const std::string& target_word(std::uint32_t id) const { return target_words_by_id_[id]; }
  // FNV-1a 64 over both sides, pair by pair, as 16 hex digits: two corpora with the same
  // fingerprint give the same model (what a checkpoint is checked against).
  std::string fingerprint() const;

 private:
  using Vocabulary = std::unordered_map<std::string, std::uint32_t>;
  static void append(std::string_view sentence, Vocabulary& ids,
                     std::vector<std::string>& words_by_id, std::vector<std::uint32_t>& words,
                     std::vector<size_t>& begin);

  Vocabulary source_ids_, target_ids_;
  std::vector<std::string> source_words_by_id_, target_words_by_id_;
  std::vector<std::uint32_t> source_words_, target_words_;
  std::vector<size_t> source_begin_{0}, target_begin_{0};
};

// How the tension's gradient is computed between EM updates (with optimize_tension).
enum class TensionGradient {
  exact,       // of the expected log-likelihood per word
  fast_align,  // as fast_align computes it, deviations and all (fast_align_expected_feature)
};

// The range a fitted tension is kept in (fast_align's), so also where a fitted one must start.
constexpr double kMinTension = 0.1;
constexpr double kMaxTension = 14.0;

struct Ibm2Options {
  // Passes over the corpus, counted as fast_align counts them: every pass but the last is an EM
  // update, the last one only aligns. 1 aligns with the initial, uniform t.
  int iterations = 5;
  // Models p(source | target) instead; the links are still written source-target.
  bool reverse = false;
  bool favor_diagonal = false;     // the diagonal prior above, instead of uniform positions
  double diagonal_tension = 4.0;   // λ to start from
  bool optimize_tension = false;   // fit λ after each EM update but the first
  double null_probability = 0.08;  // p0 (with favor_diagonal)
  bool null_word = true;           // allow alignment to the null word
  bool variational_bayes = false;  // Dirichlet prior on t(· | e)
  double alpha = 0.01;             // its concentration
  TensionGradient tension_gradient = TensionGradient::exact;

  // Throws ConfigError naming the option for a value out of range.
  void validate() const;
};

// The closed form of Z_λ(j, m, n) = Σ_{i=1..n} exp(λ h(i, j, m, n)) for target position j
// (1-based) of m, source length n and tension λ > 0.
double diagonal_normalizer(int j, int m, int n, double tension);
// d log Z_λ / dλ = E[h] under p(i) ∝ exp(λ h): the model's expected diagonal feature, also in
// closed form (two arithmetico-geometric series).
double diagonal_expected_feature(int j, int m, int n, double tension);
// What fast_align uses as d log Z / dλ: the numerator of diagonal_expected_feature over the
// normaliser of the swapped lengths, Σ_{k≥1} exp(−λ |k/m − j/n|), summed over k = 1..m when
// j <= n and over every k >= 1 when j > n (fast_align counts the terms past j·m/n as m minus
// their start in an unsigned integer, which then wraps around to about 2^32).
double fast_align_expected_feature(int j, int m, int n, double tension);

// One entry of the lexical translation table t(to | from): `from` a word of the conditioning
// side (the corpus' source side, or its target side with reverse), `to` a word it generates.
struct LexicalEntry {
  std::string from, to;
  double probability = 0;
};

// What one EM update saw, for the log and for tests.
struct Ibm2Iteration {
  double log_likelihood = 0;  // Σ log p(f | e) of the pairs, natural log
  double target_tokens = 0;   // words generated (pairs with an empty side not counted)
  double null_posterior = 0;  // expected share of words aligned to null
  double tension = 0;         // λ after the update
};
using Ibm2Progress = std::function<void(int iteration, const Ibm2Iteration&)>;

// What the model has learned after some EM updates: all a checkpoint needs for the next updates
// to be those of an uninterrupted run, bit for bit (the prior tables follow from the tension).
struct Ibm2State {
  int updates = 0;        // EM updates done
  double tension = 0;     // λ
  std::vector<double> t;  // t(f | e) in the model's order of co-occurring word pairs
};

class Ibm2 {
 public:
  // Indexes every co-occurring (e, f) pair of the corpus (the corpus must outlive the model).
  // Uses `threads` threads for all work; the results do not depend on their number. Throws
  // ConfigError for invalid options.
  Ibm2(const WordCorpus& corpus, const Ibm2Options& options, int threads);
  ~Ibm2();
  Ibm2(const Ibm2&) = delete;
  Ibm2& operator=(const Ibm2&) = delete;

  // EM updates until options.iterations − 1 are done (counting those of a restored state);
  // on_iteration (may be empty) is called after each. stop (may be empty) is polled between
  // chunks of sentences, from the worker threads: once it returns true the update under way is
  // dropped and train returns false, the model as it was after the last whole update.
  bool train(const Ibm2Progress& on_iteration = {}, const std::function<bool()>& stop = {});
  // One EM update: expected counts under the current model, the tension fitted to them (with
  // optimize_tension, from the second update on), then t re-estimated.
  Ibm2Iteration em_step();
  // The most probable alignment of every pair (null links left out), oriented source-target.
  std::vector<Alignment> align() const;

  // t(f | e) for words of the conditioning side e and the generated side f (the corpus'
  // source and target, swapped with reverse); e = -1 is the null word. 0 for pairs that never
  // co-occur.
  double translation_probability(long e, long f) const;
  double tension() const;
  int updates_done() const;
  Ibm2State state() const;
  // Continues from a state of a model of the same corpus and options. Throws FormatError when
  // its table has another size, or it has more updates than the options allow.
  void restore(Ibm2State state);
  // Every t(f | e) >= floor of a real word e (the null word's row left out), sorted by e's
  // bytes, then by decreasing probability, then by f's bytes: what --lexical-table writes.
  std::vector<LexicalEntry> lexical_table(double floor) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Ibm2::train, then Ibm2::align.
std::vector<Alignment> train_and_align(const WordCorpus& corpus, const Ibm2Options& options,
                                       int threads, const Ibm2Progress& on_iteration = {});

}  // namespace heed::align
