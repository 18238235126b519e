#include "heed/eval/multi_run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "heed/common/error.h"
#include "heed/common/parallel.h"
#include "heed/common/rng.h"

namespace heed::eval {
namespace {

// The stream of the run draws; the segments come from paired_bootstrap's (kSegmentDrawStream).
constexpr std::uint64_t kRunDrawStream = 0xb008;

// Resamples drawn and scored together: a block's counts stay within 16 MB (fewer resamples a
// block on a long test set).
size_t block_size_for(size_t segments) {
  return std::clamp<size_t>((size_t{1} << 21) / segments, 1, 64);
}

// p = count / B, or "< 1/(B+1)" when count is 0.
PValue share(long long count, size_t samples) {
  if (count == 0) return {1.0 / (static_cast<double>(samples) + 1), true};
  return {std::min(1.0, static_cast<double>(count) / static_cast<double>(samples)), false};
}

void check_shapes(const std::vector<SystemRuns>& systems, int samples, double margin) {
  if (systems.empty()) throw InternalError("compare_runs needs at least one system");
  if (samples <= 0) throw ConfigError("--bootstrap needs a positive number of resamples");
  if (!std::isfinite(margin) || margin <= 0) {
    throw ConfigError("the equivalence margin must be a finite number > 0");
  }
  if (systems[0].empty()) throw InternalError("compare_runs: system 0 has no runs");
  const size_t segments = systems[0][0].size();
  if (segments == 0) throw DataError("bootstrap: no segments to resample");
  const size_t dims = systems[0][0][0].size();
  for (size_t s = 0; s < systems.size(); ++s) {
    if (systems[s].empty()) {
      throw InternalError("compare_runs: system " + std::to_string(s) + " has no runs");
    }
    for (const auto& run : systems[s]) {
      if (run.size() != segments) throw InternalError("compare_runs: runs differ in segments");
      for (const auto& segment : run) {
        if (segment.size() != dims) throw InternalError("compare_runs: statistics differ in size");
      }
    }
  }
}

}  // namespace

std::string format_p_value(const PValue& p) {
  char buffer[64];
  if (p.less_than) {
    // Three significant digits rounded up, so that the bound printed is never below the true
    // one: 1/1001 → "< 0.001", 1/21 → "< 0.0477".
    const double unit = std::pow(10.0, std::floor(std::log10(p.value)) - 2);
    std::snprintf(buffer, sizeof buffer, "< %.3g", std::ceil(p.value / unit - 1e-9) * unit);
  } else {
    std::snprintf(buffer, sizeof buffer, p.value == 0 || p.value >= 1e-4 ? "%.4f" : "%.1e",
                  p.value);
  }
  return buffer;
}

bool below(const PValue& p, double alpha) {
  return p.less_than ? p.value <= alpha : p.value < alpha;
}

PValue two_sided_p(const std::vector<double>& differences) {
  if (differences.empty()) throw InternalError("two_sided_p: no resamples");
  long long at_most_0 = 0, at_least_0 = 0;
  for (double d : differences) {
    at_most_0 += d <= 0 ? 1 : 0;
    at_least_0 += d >= 0 ? 1 : 0;
  }
  const PValue one_side = share(std::min(at_most_0, at_least_0), differences.size());
  if (one_side.less_than) return one_side;
  return {std::min(1.0, 2 * one_side.value), false};
}

std::vector<PValue> holm_adjust(const std::vector<PValue>& p) {
  const size_t m = p.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), size_t{0});
  // Ascending; a bound "< v" before an exact v (its true value is below v).
  std::stable_sort(order.begin(), order.end(), [&p](size_t a, size_t b) {
    if (p[a].value != p[b].value) return p[a].value < p[b].value;
    return p[a].less_than && !p[b].less_than;
  });
  std::vector<PValue> adjusted(m);
  PValue running{0.0, false};  // the maximum so far
  for (size_t k = 0; k < m; ++k) {
    const PValue& raw = p[order[k]];
    const double scaled = std::min(1.0, static_cast<double>(m - k) * raw.value);
    // An exact value at least as large as a bound decides the maximum (the bound's true value
    // is below it); a bound decides it only when strictly larger than every exact term.
    if (scaled > running.value || (scaled == running.value && running.less_than)) {
      running = {scaled, raw.less_than && scaled < 1.0};
    }
    adjusted[order[k]] = running;
  }
  return adjusted;
}

Equivalence tost(const std::vector<double>& differences, double margin) {
  if (differences.empty()) throw InternalError("tost: no resamples");
  Equivalence e;
  e.ci90 = percentile_interval(differences, 0.90);
  long long at_low = 0, at_high = 0;  // resamples at or beyond each margin
  for (double d : differences) {
    at_low += d <= -margin ? 1 : 0;
    at_high += d >= margin ? 1 : 0;
  }
  e.p = share(std::max(at_low, at_high), differences.size());
  e.p_holm = e.p;
  e.equivalent = below(e.p_holm, kAlpha);
  return e;
}

DrawResample seeded_draws(std::uint64_t seed) {
  return [segment_rng = make_rng(seed, kSegmentDrawStream),
          run_rng = make_rng(seed, kRunDrawStream)](Resample& draw) mutable {
    if (!draw.segments.empty()) {
      std::uniform_int_distribution<size_t> pick(0, draw.segments.size() - 1);
      for (auto& i : draw.segments) i = pick(segment_rng);
    }
    for (auto& runs : draw.runs) {
      if (runs.empty()) continue;
      std::uniform_int_distribution<size_t> pick(0, runs.size() - 1);
      for (auto& r : runs) r = pick(run_rng);
    }
  };
}

double compare_runs_bytes(const std::vector<size_t>& runs_per_system, size_t segments, size_t dims,
                          const MultiRunOptions& options) {
  double runs = 0;
  for (const size_t n : runs_per_system) runs += double(n);
  const double systems = double(runs_per_system.size());
  const double samples = double(std::max(options.samples, 1));
  const double block = double(block_size_for(std::max<size_t>(segments, 1)));
  const double workers = double(std::max(options.threads, 1));
  const double width = runs * double(dims);
  return 8.0 * (double(segments) * width                // the table of every run's statistics
                + systems * samples                     // every system's resampled scores
                + 2.0 * samples                         // the differences, and a sorted copy
                + block * double(segments)              // a block's segment counts
                + block * runs                          // a block's run draws
                + (block + workers) * (width + runs));  // the threads' sums and scores
}

std::vector<SystemComparison> compare_runs(const std::vector<SystemRuns>& systems,
                                           const CorpusScore& score,
                                           const MultiRunOptions& options) {
  return compare_runs(systems, score, options.samples, options.equivalence_margin,
                      seeded_draws(options.seed), options.threads);
}

std::vector<SystemComparison> compare_runs(const std::vector<SystemRuns>& systems,
                                           const CorpusScore& score, int samples,
                                           double equivalence_margin, const DrawResample& draw,
                                           int threads) {
  check_shapes(systems, samples, equivalence_margin);
  const size_t n_systems = systems.size();
  const size_t segments = systems[0][0].size();
  const size_t dims = systems[0][0][0].size();
  const auto n_samples = static_cast<size_t>(samples);

  // Every run of every system side by side, segment-major: row i holds each run's statistics of
  // segment i (run k's at k·dims), so a resample's sums for all runs are one pass over
  // contiguous rows. first[s]: the column of system s's first run.
  std::vector<size_t> first(n_systems + 1, 0);
  for (size_t s = 0; s < n_systems; ++s) first[s + 1] = first[s] + systems[s].size();
  const size_t width = first[n_systems] * dims;
  std::vector<double> table(segments * width);
  for (size_t s = 0; s < n_systems; ++s) {
    for (size_t r = 0; r < systems[s].size(); ++r) {
      for (size_t i = 0; i < segments; ++i) {
        std::copy(systems[s][r][i].begin(), systems[s][r][i].end(),
                  table.begin() + static_cast<std::ptrdiff_t>(i * width + (first[s] + r) * dims));
      }
    }
  }
  // The corpus scores of every run on the resamples k = 0..n−1 whose segment i occurs
  // counts[k·segments + i] times (scores[k·runs + run]). One pass over the table serves them
  // all, so that it is read from memory once per block of resamples, not once per resample.
  // Each sum adds its segments in ascending order, whatever the block or thread: the figures do
  // not depend on the thread count (and the statistics are counts, integers in doubles, so the
  // sums are exact anyway).
  const size_t n_runs = first[n_systems];
  auto run_scores = [&](const double* counts, size_t n, std::vector<double>& sums,
                        SegmentStats& one, std::vector<double>& scores) {
    std::fill(sums.begin(), sums.begin() + static_cast<std::ptrdiff_t>(n * width), 0.0);
    for (size_t i = 0; i < segments; ++i) {
      const double* row = &table[i * width];
      for (size_t k = 0; k < n; ++k) {
        const double c = counts[k * segments + i];
        if (c == 0) continue;
        double* sum = &sums[k * width];
        for (size_t j = 0; j < width; ++j) sum[j] += c * row[j];
      }
    }
    for (size_t k = 0; k < n * n_runs; ++k) {
      std::copy(sums.begin() + static_cast<std::ptrdiff_t>(k * dims),
                sums.begin() + static_cast<std::ptrdiff_t>((k + 1) * dims), one.begin());
      scores[k] = score(one);
    }
  };

  std::vector<SystemComparison> results(n_systems);
  {
    const std::vector<double> all_once(segments, 1.0);
    std::vector<double> sums(width), scores(n_runs);
    SegmentStats one(dims);
    run_scores(all_once.data(), 1, sums, one, scores);
    for (size_t s = 0; s < n_systems; ++s) {
      SystemComparison& r = results[s];
      r.run_scores.assign(scores.begin() + static_cast<std::ptrdiff_t>(first[s]),
                          scores.begin() + static_cast<std::ptrdiff_t>(first[s + 1]));
      r.runs = static_cast<int>(r.run_scores.size());
      r.mean = std::accumulate(r.run_scores.begin(), r.run_scores.end(), 0.0) / r.runs;
      double squares = 0;
      for (double x : r.run_scores) squares += (x - r.mean) * (x - r.mean);
      r.sd =
          r.runs > 1 ? std::sqrt(squares / (r.runs - 1)) : std::numeric_limits<double>::quiet_NaN();
      r.difference = r.mean - results[0].mean;
    }
  }

  // resampled[s][b]: system s's score on resample b, all runs' mean plus λ times the drawn
  // runs' deviation from it (the header's rescaling).
  std::vector<std::vector<double>> resampled(n_systems, std::vector<double>(n_samples));
  std::vector<double> rescale(n_systems, 1.0);
  for (size_t s = 0; s < n_systems; ++s) {
    const double n = static_cast<double>(systems[s].size());
    if (n > 1) rescale[s] = std::sqrt(n / (n - 1));
  }
  // The resamples in blocks: drawn in order by this thread (draw is a sequence), then scored
  // by the threads, each a run of the block's resamples with its own buffers.
  const size_t block_size = block_size_for(segments);
  const int workers = std::max(1, threads);
  const size_t per_worker =
      (block_size + static_cast<size_t>(workers) - 1) / static_cast<size_t>(workers);
  std::vector<double> counts(block_size * segments);
  Resample d;
  d.segments.resize(segments);
  for (size_t s = 0; s < n_systems; ++s) d.runs.emplace_back(systems[s].size());
  std::vector<std::vector<std::vector<size_t>>> picks(block_size);  // [k][s]: the runs drawn
  struct Scratch {
    std::vector<double> sums, scores;
    SegmentStats one;
  };
  std::vector<Scratch> scratch(static_cast<size_t>(workers));
  for (auto& w : scratch) {
    w = {std::vector<double>(per_worker * width), std::vector<double>(per_worker * n_runs),
         SegmentStats(dims)};
  }
  for (size_t b0 = 0; b0 < n_samples; b0 += block_size) {
    const size_t block = std::min(block_size, n_samples - b0);
    std::fill(counts.begin(), counts.end(), 0.0);
    for (size_t k = 0; k < block; ++k) {
      draw(d);
      for (size_t i : d.segments) {
        if (i >= segments) throw InternalError("compare_runs: drawn segment out of range");
        counts[k * segments + i] += 1;
      }
      for (size_t s = 0; s < n_systems; ++s) {
        for (size_t r : d.runs[s]) {
          if (r >= systems[s].size()) throw InternalError("compare_runs: drawn run out of range");
        }
      }
      picks[k] = d.runs;
    }
    parallel_for_chunks(block, per_worker, workers, [&](size_t begin, size_t end, int worker) {
      Scratch& w = scratch[static_cast<size_t>(worker)];
      run_scores(&counts[begin * segments], end - begin, w.sums, w.one, w.scores);
      for (size_t k = begin; k < end; ++k) {
        for (size_t s = 0; s < n_systems; ++s) {
          const double* own = &w.scores[(k - begin) * n_runs + first[s]];
          const size_t n = systems[s].size();
          double drawn_mean = 0;
          for (size_t r : picks[k][s]) drawn_mean += own[r];
          drawn_mean /= static_cast<double>(picks[k][s].size());
          if (n == 1) {
            resampled[s][b0 + k] = drawn_mean;  // exactly the one run's score (paired_bootstrap's)
          } else {
            double all = 0;
            for (size_t r = 0; r < n; ++r) all += own[r];
            all /= static_cast<double>(n);
            resampled[s][b0 + k] = all + rescale[s] * (drawn_mean - all);
          }
        }
      }
    });
  }

  std::vector<PValue> raw, raw_tost, raw_welch;
  std::vector<double> differences(n_samples);
  for (size_t s = 0; s < n_systems; ++s) {
    SystemComparison& r = results[s];
    r.resampled_mean = std::accumulate(resampled[s].begin(), resampled[s].end(), 0.0) /
                       static_cast<double>(n_samples);
    const Interval interval = percentile_interval(resampled[s], 0.95);
    r.ci = 0.5 * (interval.high - interval.low);
    if (s == 0) continue;
    for (size_t b = 0; b < n_samples; ++b) differences[b] = resampled[s][b] - resampled[0][b];
    r.ci95 = percentile_interval(differences, 0.95);
    r.p = two_sided_p(differences);
    r.equivalence = tost(differences, equivalence_margin);
    r.welch = welch_test(results[0].run_scores, r.run_scores);
    raw.push_back(r.p);
    raw_tost.push_back(r.equivalence.p);
    if (r.welch.defined) raw_welch.push_back({r.welch.p, false});
  }
  const std::vector<PValue> adjusted = holm_adjust(raw);
  const std::vector<PValue> adjusted_tost = holm_adjust(raw_tost);
  const std::vector<PValue> adjusted_welch = holm_adjust(raw_welch);
  for (size_t s = 1, k = 0; s < n_systems; ++s) {
    SystemComparison& r = results[s];
    r.p_holm = adjusted[s - 1];
    r.equivalence.p_holm = adjusted_tost[s - 1];
    r.equivalence.equivalent = below(r.equivalence.p_holm, kAlpha);
    if (r.welch.defined) r.welch_p_holm = adjusted_welch[k++];
  }
  return results;
}

}  // namespace heed::eval
