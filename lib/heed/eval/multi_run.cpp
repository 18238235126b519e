#include "heed/eval/multi_run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "heed/common/error.h"
#include "heed/common/rng.h"

namespace heed::eval {
namespace {

// The stream of the run draws; the segments come from paired_bootstrap's (kSegmentDrawStream).
constexpr std::uint64_t kRunDrawStream = 0xb008;

// p = count / B, or "< 1/(B+1)" when count is 0.
PValue share(long long count, size_t samples) {
  if (count == 0) return {1.0 / (static_cast<double>(samples) + 1), true};
  return {std::min(1.0, static_cast<double>(count) / static_cast<double>(samples)), false};
}

// One run's statistics as one row-major block [segment][statistic]: the resampled sums read it
// in one pass.
struct Run {
  std::vector<double> stats;
};

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

Run flatten(const std::vector<SegmentStats>& segments) {
  Run run;
  run.stats.reserve(segments.size() * segments[0].size());
  for (const auto& s : segments) run.stats.insert(run.stats.end(), s.begin(), s.end());
  return run;
}

// The corpus score of run on a resample whose segment i occurs counts[i] times. The statistics
// are counts (integers in doubles), so the sums are exact in any order.
double resampled_score(const Run& run, const std::vector<double>& counts, SegmentStats& sum,
                       const CorpusScore& score) {
  std::fill(sum.begin(), sum.end(), 0.0);
  const size_t dims = sum.size();
  for (size_t i = 0; i < counts.size(); ++i) {
    const double c = counts[i];
    if (c == 0) continue;
    const double* x = &run.stats[i * dims];
    for (size_t j = 0; j < dims; ++j) sum[j] += c * x[j];
  }
  return score(sum);
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
  e.equivalent = e.ci90.low > -margin && e.ci90.high < margin;
  long long below = 0, above = 0;  // resamples at or beyond each margin
  for (double d : differences) {
    below += d <= -margin ? 1 : 0;
    above += d >= margin ? 1 : 0;
  }
  e.p = share(std::max(below, above), differences.size());
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

std::vector<SystemComparison> compare_runs(const std::vector<SystemRuns>& systems,
                                           const CorpusScore& score,
                                           const MultiRunOptions& options) {
  return compare_runs(systems, score, options.samples, options.equivalence_margin,
                      seeded_draws(options.seed));
}

std::vector<SystemComparison> compare_runs(const std::vector<SystemRuns>& systems,
                                           const CorpusScore& score, int samples,
                                           double equivalence_margin, const DrawResample& draw) {
  check_shapes(systems, samples, equivalence_margin);
  const size_t n_systems = systems.size();
  const size_t segments = systems[0][0].size();
  const size_t dims = systems[0][0][0].size();
  const auto n_samples = static_cast<size_t>(samples);

  std::vector<std::vector<Run>> runs(n_systems);
  std::vector<SystemComparison> results(n_systems);
  const std::vector<double> all_once(segments, 1.0);
  SegmentStats sum(dims);
  for (size_t s = 0; s < n_systems; ++s) {
    SystemComparison& r = results[s];
    for (const auto& run : systems[s]) {
      runs[s].push_back(flatten(run));
      r.run_scores.push_back(resampled_score(runs[s].back(), all_once, sum, score));
    }
    r.runs = static_cast<int>(r.run_scores.size());
    r.mean = std::accumulate(r.run_scores.begin(), r.run_scores.end(), 0.0) / r.runs;
    double squares = 0;
    for (double x : r.run_scores) squares += (x - r.mean) * (x - r.mean);
    r.sd =
        r.runs > 1 ? std::sqrt(squares / (r.runs - 1)) : std::numeric_limits<double>::quiet_NaN();
    r.difference = r.mean - results[0].mean;
  }

  // resampled[s][b]: system s's score on resample b, all runs' mean plus λ times the drawn
  // runs' deviation from it (the header's rescaling).
  std::vector<std::vector<double>> resampled(n_systems, std::vector<double>(n_samples));
  std::vector<double> rescale(n_systems, 1.0);
  for (size_t s = 0; s < n_systems; ++s) {
    const double n = static_cast<double>(runs[s].size());
    if (n > 1) rescale[s] = std::sqrt(n / (n - 1));
  }
  Resample d;
  d.segments.resize(segments);
  for (size_t s = 0; s < n_systems; ++s) d.runs.emplace_back(runs[s].size());
  std::vector<double> counts(segments);
  std::vector<std::vector<double>> run_score(n_systems);  // this resample's
  for (size_t b = 0; b < n_samples; ++b) {
    draw(d);
    std::fill(counts.begin(), counts.end(), 0.0);
    for (size_t i : d.segments) {
      if (i >= segments) throw InternalError("compare_runs: drawn segment out of range");
      counts[i] += 1;
    }
    for (size_t s = 0; s < n_systems; ++s) {
      run_score[s].resize(runs[s].size());
      double all = 0;
      for (size_t r = 0; r < runs[s].size(); ++r) {
        run_score[s][r] = resampled_score(runs[s][r], counts, sum, score);
        all += run_score[s][r];
      }
      double drawn = 0;
      for (size_t r : d.runs[s]) {
        if (r >= runs[s].size()) throw InternalError("compare_runs: drawn run out of range");
        drawn += run_score[s][r];
      }
      drawn /= static_cast<double>(d.runs[s].size());
      if (runs[s].size() == 1) {
        resampled[s][b] = drawn;  // exactly the one run's score (paired_bootstrap's)
      } else {
        all /= static_cast<double>(runs[s].size());
        resampled[s][b] = all + rescale[s] * (drawn - all);
      }
    }
  }

  std::vector<PValue> raw;
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
    raw.push_back(r.p);
  }
  const std::vector<PValue> adjusted = holm_adjust(raw);
  for (size_t s = 1; s < n_systems; ++s) results[s].p_holm = adjusted[s - 1];
  return results;
}

}  // namespace heed::eval
