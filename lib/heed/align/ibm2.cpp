#include "heed/align/ibm2.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <utility>

#include "heed/common/error.h"
#include "heed/common/fnv1a.h"
#include "heed/common/parallel.h"
#include "heed/common/strings.h"

namespace heed::align {
namespace {

// Expected counts are summed as fixed-point integers (units of 2^-32): integer addition is
// exact, so the totals, and every result after them, are the same whichever thread adds which
// sentence. The resolution is far below anything EM can tell apart; a count of 2^31 for one
// pair of words would overflow, more than any corpus holds.
constexpr double kFixedPointScale = 4294967296.0;

// Fixed chunks of sentences: per-chunk sums (log-likelihood, features) are added in chunk
// order, so they too do not depend on the number of threads.
constexpr size_t kPairsPerChunk = 256;

// fast_align's schedule for fitting the tension: this many gradient steps of this size on the
// per-word gradient after each EM update, with λ kept in [kMinTension, kMaxTension] (ibm2.h).
constexpr int kTensionSteps = 8;
constexpr double kTensionStepSize = 20.0;

// ψ(x) for x > 0: the recurrence ψ(x) = ψ(x + 1) − 1/x up to x ≥ 6, then the asymptotic
// series ln x − 1/(2x) − Σ B_2k / (2k x^2k), accurate there to about 1e-12.
double digamma(double x) {
  double result = 0;
  for (; x < 6; x += 1) result -= 1 / x;
  const double inv = 1 / x, inv2 = inv * inv;
  return result + std::log(x) - 0.5 * inv -
         inv2 *
             (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 / 132))));
}

// h(i, j, m, n) = −|i/n − j/m|, 1-based positions.
double diagonal_feature(int i, int j, int m, int n) {
  return -std::fabs(static_cast<double>(i) / n - static_cast<double>(j) / m);
}

// The source positions split at j·n/m: the first `below` of them lie on or before the diagonal
// point and h grows by 1/n from position 1 to it; from position below + 1 on, h falls by 1/n
// each step. Each side is a geometric series in r = exp(−λ/n), read outwards from the diagonal.
struct DiagonalSeries {
  int below, above;                 // terms on each side
  double first_below, first_above;  // h at the term nearest the diagonal on each side
  double log_ratio;                 // log r = −λ/n
};

DiagonalSeries diagonal_series(int j, int m, int n, double tension) {
  DiagonalSeries s;
  s.below = static_cast<int>(static_cast<long long>(j) * n / m);
  s.above = n - s.below;
  s.first_below = diagonal_feature(s.below, j, m, n);
  s.first_above = diagonal_feature(s.below + 1, j, m, n);
  s.log_ratio = -tension / n;
  return s;
}

// Σ_{k<K} r^k = (1 − r^K) / (1 − r), with expm1 for accuracy when r is near 1.
double geometric_sum(int terms, double log_ratio) {
  return std::expm1(terms * log_ratio) / std::expm1(log_ratio);
}

// Σ_{k<K} k r^k = r (1 − K r^(K−1) + (K − 1) r^K) / (1 − r)^2.
double weighted_geometric_sum(int terms, double log_ratio) {
  if (terms < 2) return 0;
  const double r = std::exp(log_ratio);
  const double one_minus_r = -std::expm1(log_ratio);
  const double rk1 = std::exp((terms - 1) * log_ratio);
  return r * (1 - terms * rk1 + (terms - 1) * rk1 * r) / (one_minus_r * one_minus_r);
}

void check_positions(int j, int m, int n, double tension) {
  if (m < 1 || n < 1 || j < 1 || j > m || !(tension > 0)) {
    throw ConfigError("diagonal prior: needs 1 <= j <= m, n >= 1 and a tension > 0");
  }
}

// Σ exp(λ h) over both series. A negative `above` (the split past the last position, which only
// fast_align's swapped lengths produce) is read as fast_align's unsigned count reads it: about
// 2^32 terms, a series without end, Σ_{k≥0} r^k = 1 / (1 − r).
double series_total(const DiagonalSeries& s, double tension) {
  double z = 0;
  if (s.below > 0) z += std::exp(tension * s.first_below) * geometric_sum(s.below, s.log_ratio);
  if (s.above != 0) {
    const double upper =
        s.above > 0 ? geometric_sum(s.above, s.log_ratio) : -1 / std::expm1(s.log_ratio);
    z += std::exp(tension * s.first_above) * upper;
  }
  return z;
}

// Σ_{i=1..n} h exp(λ h), each side Σ_k (h0 − k/n) g r^k with g = exp(λ h0): Z times the
// expected feature.
double diagonal_feature_moment(int j, int m, int n, double tension) {
  const DiagonalSeries s = diagonal_series(j, m, n, tension);
  auto side = [&](int terms, double h0) {
    if (terms == 0) return 0.0;
    return std::exp(tension * h0) * (h0 * geometric_sum(terms, s.log_ratio) -
                                     weighted_geometric_sum(terms, s.log_ratio) / n);
  };
  return side(s.below, s.first_below) + side(s.above, s.first_above);
}

}  // namespace

double diagonal_normalizer(int j, int m, int n, double tension) {
  check_positions(j, m, n, tension);
  return series_total(diagonal_series(j, m, n, tension), tension);
}

double diagonal_expected_feature(int j, int m, int n, double tension) {
  check_positions(j, m, n, tension);
  return diagonal_feature_moment(j, m, n, tension) / diagonal_normalizer(j, m, n, tension);
}

double fast_align_expected_feature(int j, int m, int n, double tension) {
  check_positions(j, m, n, tension);
  // The series of the swapped lengths: k/m against j/n, ratio exp(−λ/m); for j > n their split
  // j·m/n lies past m.
  return diagonal_feature_moment(j, m, n, tension) /
         series_total(diagonal_series(j, n, m, tension), tension);
}

// ---------------------------------------------------------------------------------------------
// WordCorpus

void WordCorpus::append(std::string_view sentence, Vocabulary& ids,
                        std::vector<std::string>& words_by_id, std::vector<std::uint32_t>& words,
                        std::vector<size_t>& begin) {
  for (std::string_view word : split_whitespace(sentence)) {
    auto found = ids.find(std::string(word));
    if (found == ids.end()) {
      found = ids.emplace(std::string(word), static_cast<std::uint32_t>(ids.size())).first;
      words_by_id.emplace_back(word);
    }
    words.push_back(found->second);
  }
  begin.push_back(words.size());
}

void WordCorpus::add(std::string_view source, std::string_view target) {
  append(source, source_ids_, source_words_by_id_, source_words_, source_begin_);
  append(target, target_ids_, target_words_by_id_, target_words_, target_begin_);
}

std::string WordCorpus::fingerprint() const {
  Fnv1a hash;
  for (size_t k = 0; k < size(); ++k) {
    for (int i = 0; i < source_length(k); ++i) hash.mix(source_word(source(k)[i]));
    hash.mix("|||");
    for (int j = 0; j < target_length(k); ++j) hash.mix(target_word(target(k)[j]));
    hash.mix("\n");
  }
  return hash.hex();
}

long WordCorpus::source_id(std::string_view word) const {
  auto found = source_ids_.find(std::string(word));
  return found == source_ids_.end() ? -1 : static_cast<long>(found->second);
}

long WordCorpus::target_id(std::string_view word) const {
  auto found = target_ids_.find(std::string(word));
  return found == target_ids_.end() ? -1 : static_cast<long>(found->second);
}

void Ibm2Options::validate() const {
  auto refuse = [](const std::string& what) { throw ConfigError("ibm2: " + what); };
  if (iterations < 1) refuse("iterations must be at least 1");
  if (!(diagonal_tension > 0) || !std::isfinite(diagonal_tension)) {
    refuse("the diagonal tension must be a finite number > 0");
  }
  // The fitted tension is kept in [kMinTension, kMaxTension] from the first step on; a start
  // far outside it broke fast_align's gradient formulas (not finite from about 10^4 up).
  if (optimize_tension && (diagonal_tension < kMinTension || diagonal_tension > kMaxTension)) {
    char range[96];
    std::snprintf(range, sizeof range,
                  "--diagonal-tension %g: with --optimize-tension it must be "
                  "in [%g, %g]",
                  diagonal_tension, kMinTension, kMaxTension);
    throw ConfigError(std::string(range) +
                      ", the range the fitted tension is kept in (as fast_align keeps it)");
  }
  if (!(null_probability >= 0 && null_probability < 1)) refuse("p0 must be in [0, 1)");
  if (!(alpha > 0) || !std::isfinite(alpha)) refuse("alpha must be a finite number > 0");
}

// ---------------------------------------------------------------------------------------------
// Ibm2

// The model, with the conditioning side written e (n words, plus the null word) and the
// generated side f (m words), as in the paper; reverse swaps the corpus' sides.
struct Ibm2::Impl {
  // A sentence pair as the model sees it.
  struct Pair {
    const std::uint32_t* e;
    const std::uint32_t* f;
    int n = 0, m = 0;
    std::uint32_t shape = kNoShape;  // index into shapes; kNoShape when a side is empty
    size_t links = 0;                // offset of its m × width parameter indices in links
  };
  static constexpr std::uint32_t kNoShape = std::numeric_limits<std::uint32_t>::max();

  // All pairs with m target and n source words share their position prior.
  struct Shape {
    int m = 0, n = 0;
    size_t table = 0;    // offset of the m × width prior and feature tables
    size_t weights = 0;  // offset of its m expected non-null masses among the counts
    double pairs = 0;    // how many pairs have it
  };

  Impl(const WordCorpus& corpus, const Ibm2Options& options, int threads);

  int width(int n) const { return n + (options.null_word ? 1 : 0); }
  void index_parameters();
  void fill_prior_tables();
  double model_feature(const std::vector<std::int64_t>& counts) const;
  // One EM update of m; false (m unchanged) when stop returned true before it was done.
  static bool em_step(Impl& m, Ibm2Iteration& stats, const std::function<bool()>& stop);

  const WordCorpus& corpus;
  Ibm2Options options;
  int threads;
  double tension;
  int updates_done = 0;

  std::vector<Pair> pairs;
  std::vector<Shape> shapes;
  size_t table_size = 0, weight_slots = 0;
  std::vector<double> prior;    // p(a_j = i | j, m, n) per shape, null column first
  std::vector<double> feature;  // h(i, j, m, n) per shape, 0 in the null column

  // t(f | e): row r holds the f words that co-occur with e = r − 1 (row 0: null).
  std::vector<size_t> row_begin;
  std::vector<std::uint32_t> row_words;
  std::vector<double> t;
  // For each pair, target position and source position (null first): the index into t.
  std::vector<std::uint32_t> links;
  // Per worker: fixed-point expected counts of each t entry, then the non-null masses.
  std::vector<std::vector<std::int64_t>> counts;
};

Ibm2::Impl::Impl(const WordCorpus& corpus_, const Ibm2Options& options_, int threads_)
    : corpus(corpus_),
      options(options_),
      threads(std::max(threads_, 1)),
      tension(options_.diagonal_tension) {
  options.validate();
  std::map<std::pair<int, int>, std::uint32_t> shape_of;
  size_t link_count = 0;
  pairs.resize(corpus.size());
  for (size_t k = 0; k < corpus.size(); ++k) {
    Pair& p = pairs[k];
    p.e = options.reverse ? corpus.target(k) : corpus.source(k);
    p.f = options.reverse ? corpus.source(k) : corpus.target(k);
    p.n = options.reverse ? corpus.target_length(k) : corpus.source_length(k);
    p.m = options.reverse ? corpus.source_length(k) : corpus.target_length(k);
    if (p.n == 0 || p.m == 0) continue;
    auto [it, added] = shape_of.emplace(std::make_pair(p.m, p.n), shapes.size());
    if (added) {
      shapes.push_back({p.m, p.n, table_size, weight_slots});
      table_size += static_cast<size_t>(p.m) * width(p.n);
      weight_slots += p.m;
    }
    p.shape = it->second;
    shapes[p.shape].pairs += 1;
    p.links = link_count;
    link_count += static_cast<size_t>(p.m) * width(p.n);
  }
  links.resize(link_count);
  index_parameters();
  t.assign(row_words.size(), 1.0);  // uniform: every pair of words alike
  // fast_align gathers the posterior feature at the 0-based target position, one before the
  // position its prior uses.
  const int feature_shift = options.tension_gradient == TensionGradient::fast_align ? 0 : 1;
  feature.assign(table_size, 0.0);
  for (const Shape& s : shapes) {
    for (int j = 0; j < s.m; ++j) {
      double* row = feature.data() + s.table + static_cast<size_t>(j) * width(s.n);
      if (options.null_word) ++row;
      for (int i = 0; i < s.n; ++i) row[i] = diagonal_feature(i + 1, j + feature_shift, s.m, s.n);
    }
  }
  prior.resize(table_size);
  fill_prior_tables();
}

void Ibm2::Impl::index_parameters() {
  // Row r of t holds the f words that co-occur with e = r − 1 (row 0: the null word), in the
  // order they are first met. Each row is built from the places its e word occurs: a pair and
  // the column it fills in that pair's links (0 for the null word).
  const size_t rows =
      (options.reverse ? corpus.target_vocabulary_size() : corpus.source_vocabulary_size()) + 1;
  const int null_columns = options.null_word ? 1 : 0;
  struct Occurrence {
    std::uint32_t pair, column;
  };
  std::vector<size_t> occurrence_begin(rows + 1, 0);
  for (const Pair& p : pairs) {
    if (p.shape == kNoShape) continue;
    occurrence_begin[1] += null_columns;
    for (int i = 0; i < p.n; ++i) ++occurrence_begin[p.e[i] + 2];
  }
  for (size_t r = 0; r < rows; ++r) occurrence_begin[r + 1] += occurrence_begin[r];
  std::vector<Occurrence> occurrences(occurrence_begin[rows]);
  {
    std::vector<size_t> next(occurrence_begin.begin(), occurrence_begin.end() - 1);
    for (size_t k = 0; k < pairs.size(); ++k) {
      const Pair& p = pairs[k];
      if (p.shape == kNoShape) continue;
      const auto pair = static_cast<std::uint32_t>(k);
      if (options.null_word) occurrences[next[0]++] = {pair, 0};
      for (int i = 0; i < p.n; ++i) {
        occurrences[next[p.e[i] + 1]++] = {pair, static_cast<std::uint32_t>(i + null_columns)};
      }
    }
  }

  // Two passes over the rows, each worker marking the f words a row has met (stamp r + 1):
  // the first counts each row's distinct words, the second gives them their places in t and
  // writes those into the links.
  const size_t f_words =
      options.reverse ? corpus.source_vocabulary_size() : corpus.target_vocabulary_size();
  std::vector<std::vector<std::uint32_t>> stamp(threads), place(threads);
  row_begin.assign(rows + 1, 0);
  parallel_for_chunks(rows, 16, threads, [&](size_t first, size_t last, int worker) {
    std::vector<std::uint32_t>& seen = stamp[worker];
    if (seen.empty()) seen.assign(f_words, 0);
    for (size_t r = first; r < last; ++r) {
      const auto mark = static_cast<std::uint32_t>(r + 1);
      size_t distinct = 0;
      for (size_t o = occurrence_begin[r]; o < occurrence_begin[r + 1]; ++o) {
        const Pair& p = pairs[occurrences[o].pair];
        for (int j = 0; j < p.m; ++j) {
          if (seen[p.f[j]] != mark) {
            seen[p.f[j]] = mark;
            ++distinct;
          }
        }
      }
      row_begin[r + 1] = distinct;
    }
  });
  for (size_t r = 0; r < rows; ++r) row_begin[r + 1] += row_begin[r];
  if (row_begin[rows] > std::numeric_limits<std::uint32_t>::max()) {
    throw DataError("ibm2: the corpus has more than 2^32 co-occurring word pairs");
  }
  row_words.resize(row_begin[rows]);
  for (auto& seen : stamp) std::fill(seen.begin(), seen.end(), 0);
  parallel_for_chunks(rows, 16, threads, [&](size_t first, size_t last, int worker) {
    std::vector<std::uint32_t>& seen = stamp[worker];
    std::vector<std::uint32_t>& at = place[worker];
    if (seen.empty()) seen.assign(f_words, 0);
    if (at.empty()) at.assign(f_words, 0);
    for (size_t r = first; r < last; ++r) {
      const auto mark = static_cast<std::uint32_t>(r + 1);
      auto next = static_cast<std::uint32_t>(row_begin[r]);
      for (size_t o = occurrence_begin[r]; o < occurrence_begin[r + 1]; ++o) {
        const Pair& p = pairs[occurrences[o].pair];
        const size_t w = static_cast<size_t>(width(p.n));
        std::uint32_t* out = links.data() + p.links + occurrences[o].column;
        for (int j = 0; j < p.m; ++j, out += w) {
          const std::uint32_t f = p.f[j];
          if (seen[f] != mark) {
            seen[f] = mark;
            at[f] = next;
            row_words[next++] = f;
          }
          *out = at[f];
        }
      }
    }
  });
  counts.assign(threads, {});
}

void Ibm2::Impl::fill_prior_tables() {
  for (const Shape& s : shapes) {
    const int w = width(s.n);
    for (int j = 0; j < s.m; ++j) {
      double* row = prior.data() + s.table + static_cast<size_t>(j) * w;
      if (!options.favor_diagonal) {
        std::fill(row, row + w, 1.0 / w);
        continue;
      }
      double word_share = 1.0;
      if (options.null_word) {
        *row++ = options.null_probability;
        word_share = 1.0 - options.null_probability;
      }
      const double z = diagonal_normalizer(j + 1, s.m, s.n, tension);
      for (int i = 0; i < s.n; ++i) {
        row[i] = word_share * std::exp(tension * diagonal_feature(i + 1, j + 1, s.m, s.n)) / z;
      }
    }
  }
}

// Σ over target positions of (expected non-null mass) × E_λ[h]: what the empirical feature
// sum would be if the data followed the model at tension λ. fast_align weights every target
// position by 1, null-aligned or not, and takes its own d log Z.
double Ibm2::Impl::model_feature(const std::vector<std::int64_t>& reduced) const {
  const size_t slots = row_words.size();
  const bool as_fast_align = options.tension_gradient == TensionGradient::fast_align;
  double sum = 0;
  for (const Shape& s : shapes) {
    for (int j = 0; j < s.m; ++j) {
      if (as_fast_align) {
        sum += s.pairs * fast_align_expected_feature(j + 1, s.m, s.n, tension);
        continue;
      }
      const double mass = static_cast<double>(reduced[slots + s.weights + j]) / kFixedPointScale;
      if (mass > 0) sum += mass * diagonal_expected_feature(j + 1, s.m, s.n, tension);
    }
  }
  return sum;
}

Ibm2::Ibm2(const WordCorpus& corpus, const Ibm2Options& options, int threads)
    : impl_(std::make_unique<Impl>(corpus, options, threads)) {}

Ibm2::~Ibm2() = default;

double Ibm2::tension() const {
  return impl_->tension;
}

int Ibm2::updates_done() const {
  return impl_->updates_done;
}

Ibm2State Ibm2::state() const {
  return {impl_->updates_done, impl_->tension, impl_->t};
}

void Ibm2::restore(Ibm2State state) {
  Impl& m = *impl_;
  if (state.t.size() != m.t.size()) {
    throw FormatError("the IBM Model 2 state has " + std::to_string(state.t.size()) +
                      " translation probabilities where this corpus has " +
                      std::to_string(m.t.size()));
  }
  if (state.updates < 0 || state.updates > std::max(m.options.iterations - 1, 0)) {
    throw FormatError("the IBM Model 2 state has " + std::to_string(state.updates) +
                      " EM updates; these options make " +
                      std::to_string(std::max(m.options.iterations - 1, 0)));
  }
  if (!(std::isfinite(state.tension) && state.tension > 0)) {
    throw FormatError("the IBM Model 2 state has the tension " + std::to_string(state.tension));
  }
  for (const double p : state.t) {
    if (!(p >= 0 && std::isfinite(p))) {
      throw FormatError("the IBM Model 2 state has a translation probability " + std::to_string(p));
    }
  }
  m.updates_done = state.updates;
  m.t = std::move(state.t);
  if (state.tension != m.tension) {
    m.tension = state.tension;
    m.fill_prior_tables();
  }
}

Ibm2Iteration Ibm2::em_step() {
  Ibm2Iteration stats;
  Impl::em_step(*impl_, stats, {});
  return stats;
}

bool Ibm2::Impl::em_step(Impl& m, Ibm2Iteration& stats, const std::function<bool()>& stop) {
  const size_t slots = m.row_words.size();
  const size_t chunks = (m.pairs.size() + kPairsPerChunk - 1) / kPairsPerChunk;
  // Per chunk: log-likelihood, generated words, null mass, Σ posterior × h.
  std::vector<double> chunk_log_likelihood(chunks), chunk_tokens(chunks), chunk_null(chunks),
      chunk_feature(chunks);
  for (auto& c : m.counts) c.clear();

  std::atomic<bool> stopped{false};
  parallel_for_chunks(
      m.pairs.size(), kPairsPerChunk, m.threads, [&](size_t first, size_t last, int worker) {
        if (stopped.load(std::memory_order_relaxed) || (stop && stop())) {
          stopped = true;
          return;
        }
        std::vector<std::int64_t>& counts = m.counts[worker];
        if (counts.empty()) counts.assign(slots + m.weight_slots, 0);
        std::vector<double> posterior;
        double log_likelihood = 0, tokens = 0, null_mass = 0, feature_sum = 0;
        for (size_t k = first; k < last; ++k) {
          const Impl::Pair& p = m.pairs[k];
          if (p.shape == Impl::kNoShape) continue;
          const Impl::Shape& s = m.shapes[p.shape];
          const int w = m.width(p.n);
          posterior.resize(w);
          tokens += p.m;
          for (int j = 0; j < p.m; ++j) {
            const size_t at = static_cast<size_t>(j) * w;
            const std::uint32_t* index = m.links.data() + p.links + at;
            const double* prior = m.prior.data() + s.table + at;
            const double* h = m.feature.data() + s.table + at;
            double sum = 0;
            for (int i = 0; i < w; ++i) {
              posterior[i] = m.t[index[i]] * prior[i];
              sum += posterior[i];
            }
            if (!(sum > 0)) continue;  // every choice underflowed: nothing to learn from
            log_likelihood += std::log(sum);
            const double inverse = 1 / sum;
            for (int i = 0; i < w; ++i) {
              const double q = posterior[i] * inverse;
              counts[index[i]] += static_cast<std::int64_t>(q * kFixedPointScale + 0.5);
              feature_sum += q * h[i];
            }
            const double null_share = m.options.null_word ? posterior[0] * inverse : 0.0;
            null_mass += null_share;
            counts[slots + s.weights + j] +=
                static_cast<std::int64_t>((1 - null_share) * kFixedPointScale + 0.5);
          }
        }
        const size_t c = first / kPairsPerChunk;
        chunk_log_likelihood[c] = log_likelihood;
        chunk_tokens[c] = tokens;
        chunk_null[c] = null_mass;
        chunk_feature[c] = feature_sum;
      });

  if (stopped) return false;

  // Sum the workers' counts into the first worker's (exact: integers).
  std::vector<std::int64_t>& total = m.counts[0];
  if (total.empty()) total.assign(slots + m.weight_slots, 0);
  parallel_for_chunks(total.size(), 1 << 16, m.threads, [&](size_t first, size_t last, int) {
    for (size_t w = 1; w < m.counts.size(); ++w) {
      if (m.counts[w].empty()) continue;
      for (size_t x = first; x < last; ++x) total[x] += m.counts[w][x];
    }
  });

  stats = {};
  double feature_sum = 0;
  for (size_t c = 0; c < chunks; ++c) {
    stats.log_likelihood += chunk_log_likelihood[c];
    stats.target_tokens += chunk_tokens[c];
    stats.null_posterior += chunk_null[c];
    feature_sum += chunk_feature[c];
  }
  if (stats.target_tokens > 0) stats.null_posterior /= stats.target_tokens;
  // Before the first update t is 1 everywhere: the posteriors only need t up to a factor, but
  // as a probability the uniform t(f | e) is 1 / |V_f|, so the likelihood (and the perplexity
  // logged from it, else 1) is that of the uniform model.
  if (m.updates_done == 0) {
    const size_t f_words =
        m.options.reverse ? m.corpus.source_vocabulary_size() : m.corpus.target_vocabulary_size();
    if (f_words > 0) stats.log_likelihood -= stats.target_tokens * std::log(double(f_words));
  }

  // The tension: gradient steps on the expected log-likelihood per word, whose gradient is the
  // posterior feature minus the model's (skipped after the first update, whose posteriors come
  // from uniform t and so from the prior itself); or fast_align's version of both features.
  if (m.options.favor_diagonal && m.options.optimize_tension && m.updates_done > 0 &&
      stats.target_tokens > 0) {
    const double empirical = feature_sum / stats.target_tokens;
    for (int step = 0; step < kTensionSteps; ++step) {
      const double modelled = m.model_feature(total) / stats.target_tokens;
      m.tension = std::clamp(m.tension + kTensionStepSize * (empirical - modelled), kMinTension,
                             kMaxTension);
    }
    m.fill_prior_tables();
  }
  stats.tension = m.tension;

  // t from the counts: relative frequencies, or under the Dirichlet prior
  // exp(ψ(c + α) − ψ(Σ_f (c + α))).
  const size_t rows = m.row_begin.size() - 1;
  parallel_for_chunks(rows, 256, m.threads, [&](size_t first, size_t last, int) {
    for (size_t r = first; r < last; ++r) {
      const size_t b = m.row_begin[r], e = m.row_begin[r + 1];
      double row_total = 0;
      for (size_t x = b; x < e; ++x) row_total += static_cast<double>(total[x]) / kFixedPointScale;
      if (m.options.variational_bayes) {
        const double alpha = m.options.alpha;
        const double log_total = digamma(row_total + alpha * static_cast<double>(e - b));
        for (size_t x = b; x < e; ++x) {
          m.t[x] = std::exp(digamma(static_cast<double>(total[x]) / kFixedPointScale + alpha) -
                            log_total);
        }
      } else if (row_total > 0) {
        for (size_t x = b; x < e; ++x) {
          m.t[x] = static_cast<double>(total[x]) / kFixedPointScale / row_total;
        }
      }
    }
  });
  ++m.updates_done;
  return true;
}

std::vector<Alignment> Ibm2::align() const {
  const Impl& m = *impl_;
  std::vector<Alignment> result(m.pairs.size());
  parallel_for_chunks(m.pairs.size(), kPairsPerChunk, m.threads,
                      [&](size_t first, size_t last, int) {
                        for (size_t k = first; k < last; ++k) {
                          const Impl::Pair& p = m.pairs[k];
                          if (p.shape == Impl::kNoShape) continue;
                          const Impl::Shape& s = m.shapes[p.shape];
                          const int w = m.width(p.n);
                          const int null_columns = w - p.n;
                          Alignment& links = result[k];
                          for (int j = 0; j < p.m; ++j) {
                            const size_t at = static_cast<size_t>(j) * w;
                            const std::uint32_t* index = m.links.data() + p.links + at;
                            const double* prior = m.prior.data() + s.table + at;
                            // The first best wins ties, the null word before every real one.
                            int best = 0;
                            double best_score = m.t[index[0]] * prior[0];
                            for (int i = 1; i < w; ++i) {
                              const double score = m.t[index[i]] * prior[i];
                              if (score > best_score) {
                                best = i;
                                best_score = score;
                              }
                            }
                            const int i = best - null_columns;
                            if (i < 0) continue;
                            links.push_back(m.options.reverse ? Link{j, i} : Link{i, j});
                          }
                          normalize(links);
                        }
                      });
  return result;
}

double Ibm2::translation_probability(long e, long f) const {
  const Impl& m = *impl_;
  const size_t row = static_cast<size_t>(e + 1);
  if (e < -1 || f < 0 || row + 1 >= m.row_begin.size()) return 0;
  const auto b = m.row_words.begin() + m.row_begin[row],
             end = m.row_words.begin() + m.row_begin[row + 1];
  const auto found = std::find(b, end, static_cast<std::uint32_t>(f));
  return found != end ? m.t[found - m.row_words.begin()] : 0.0;
}

std::vector<LexicalEntry> Ibm2::lexical_table(double floor) const {
  const Impl& m = *impl_;
  const auto& e_word = [&m](std::uint32_t id) -> const std::string& {
    return m.options.reverse ? m.corpus.target_word(id) : m.corpus.source_word(id);
  };
  const auto& f_word = [&m](std::uint32_t id) -> const std::string& {
    return m.options.reverse ? m.corpus.source_word(id) : m.corpus.target_word(id);
  };
  std::vector<LexicalEntry> table;
  for (size_t row = 1; row + 1 < m.row_begin.size(); ++row) {  // row 0: the null word
    for (size_t x = m.row_begin[row]; x < m.row_begin[row + 1]; ++x) {
      if (m.t[x] >= floor) {
        table.push_back(
            {e_word(static_cast<std::uint32_t>(row - 1)), f_word(m.row_words[x]), m.t[x]});
      }
    }
  }
  std::sort(table.begin(), table.end(), [](const LexicalEntry& a, const LexicalEntry& b) {
    if (a.from != b.from) return a.from < b.from;
    if (a.probability != b.probability) return a.probability > b.probability;
    return a.to < b.to;
  });
  return table;
}

bool Ibm2::train(const Ibm2Progress& on_iteration, const std::function<bool()>& stop) {
  while (impl_->updates_done < impl_->options.iterations - 1) {
    Ibm2Iteration stats;
    if (!Impl::em_step(*impl_, stats, stop)) return false;
    if (on_iteration) on_iteration(impl_->updates_done, stats);
  }
  return true;
}

std::vector<Alignment> train_and_align(const WordCorpus& corpus, const Ibm2Options& options,
                                       int threads, const Ibm2Progress& on_iteration) {
  Ibm2 model(corpus, options, threads);
  model.train(on_iteration);
  return model.align();
}

}  // namespace heed::align
