#include "heed/eval/bootstrap.h"

#include <algorithm>
#include <cmath>

#include "heed/common/error.h"
#include "heed/common/rng.h"

namespace heed::eval {
namespace {

SegmentStats sum_of(const std::vector<SegmentStats>& segments, const std::vector<size_t>* picks) {
  SegmentStats sum(segments.empty() ? 0 : segments[0].size(), 0.0);
  const size_t n = picks ? picks->size() : segments.size();
  for (size_t k = 0; k < n; ++k) {
    const SegmentStats& s = segments[picks ? (*picks)[k] : k];
    for (size_t j = 0; j < sum.size(); ++j) sum[j] += s[j];
  }
  return sum;
}

// Mean and half the width between the 2.5% and 97.5% order statistics, as sacreBLEU.
void mean_and_ci(const std::vector<double>& scores, BootstrapResult& r) {
  double sum = 0;
  for (double s : scores) sum += s;
  r.mean = sum / static_cast<double>(scores.size());
  const Interval interval = percentile_interval(scores, 0.95);
  r.ci = 0.5 * (interval.high - interval.low);
}

}  // namespace

Interval percentile_interval(std::vector<double> values, double coverage) {
  if (values.empty()) throw InternalError("percentile_interval: no values");
  const size_t n = values.size();
  // ⌊n·(1 − coverage)/2⌋; the epsilon keeps 1000·0.025 at 25 whichever way it rounds.
  const auto lower = static_cast<size_t>(std::floor(double(n) * (1 - coverage) / 2 + 1e-9));
  const size_t upper = n - 1 - std::min(lower, n - 1);
  std::sort(values.begin(), values.end());
  return {values[std::min(lower, upper)], values[upper]};
}

std::vector<BootstrapResult> paired_bootstrap(const std::vector<std::vector<SegmentStats>>& systems,
                                              const CorpusScore& score, int samples,
                                              uint64_t seed) {
  if (systems.empty()) throw InternalError("bootstrap needs at least one system");
  if (samples <= 0) throw ConfigError("--bootstrap needs a positive number of resamples");
  const size_t segments = systems[0].size();
  for (const auto& s : systems) {
    if (s.size() != segments) throw InternalError("bootstrap: systems differ in segment count");
  }
  if (segments == 0) throw DataError("bootstrap: no segments to resample");

  Rng rng = make_rng(seed, kSegmentDrawStream);
  std::uniform_int_distribution<size_t> pick(0, segments - 1);
  std::vector<std::vector<double>> resampled(systems.size(),
                                             std::vector<double>(static_cast<size_t>(samples)));
  std::vector<size_t> picks(segments);
  for (int b = 0; b < samples; ++b) {
    for (auto& p : picks) p = pick(rng);
    for (size_t s = 0; s < systems.size(); ++s) {
      resampled[s][static_cast<size_t>(b)] = score(sum_of(systems[s], &picks));
    }
  }

  std::vector<BootstrapResult> results(systems.size());
  for (size_t s = 0; s < systems.size(); ++s) {
    results[s].score = score(sum_of(systems[s], nullptr));
    mean_and_ci(resampled[s], results[s]);
  }
  // p-value of |score_s − score_0|: how often a centred resampled difference reaches it,
  // (c + 1) / (samples + 1) as in sacreBLEU and multeval. Unlike them we count ties (>=), so
  // two identical systems get p = 1 rather than a spurious 1 / (samples + 1).
  for (size_t s = 1; s < systems.size(); ++s) {
    const double real = std::fabs(results[s].score - results[0].score);
    std::vector<double> diffs(static_cast<size_t>(samples));
    double mean = 0;
    for (size_t b = 0; b < diffs.size(); ++b) {
      diffs[b] = std::fabs(resampled[s][b] - resampled[0][b]);
      mean += diffs[b];
    }
    mean /= static_cast<double>(samples);
    long long count = 0;
    for (double d : diffs) count += (d - mean) >= real ? 1 : 0;
    results[s].p_value =
        std::min(1.0, static_cast<double>(count + 1) / static_cast<double>(samples + 1));
  }
  return results;
}

}  // namespace heed::eval
