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

NumpyDraws::NumpyDraws(uint64_t seed) {
  // SeedSequence(seed): the seed's 32-bit words hashed into a pool of four, mixed, then the
  // pool drawn into four 64-bit words (O'Neill's seed_seq with numpy's constants).
  constexpr uint32_t kInitA = 0x43b0d7e5, kMultA = 0x931e8875, kInitB = 0x8b51f9dd,
                     kMultB = 0x58f38ded, kMixL = 0xca01f9dd, kMixR = 0x4973f715;
  std::vector<uint32_t> entropy;
  do {
    entropy.push_back(static_cast<uint32_t>(seed));
    seed >>= 32;
  } while (seed != 0);
  uint32_t hash = kInitA;
  const auto hashmix = [&hash](uint32_t value) {
    value ^= hash;
    hash *= kMultA;
    value *= hash;
    return value ^ (value >> 16);
  };
  const auto mix = [](uint32_t x, uint32_t y) {
    const uint32_t r = kMixL * x - kMixR * y;
    return r ^ (r >> 16);
  };
  uint32_t pool[4];
  for (size_t i = 0; i < 4; ++i) pool[i] = hashmix(i < entropy.size() ? entropy[i] : 0);
  for (size_t from = 0; from < 4; ++from) {
    for (size_t to = 0; to < 4; ++to) {
      if (from != to) pool[to] = mix(pool[to], hashmix(pool[from]));
    }
  }
  uint32_t draw_hash = kInitB;
  uint64_t words[4];
  for (size_t i = 0; i < 8; ++i) {
    uint32_t value = pool[i % 4] ^ draw_hash;
    draw_hash *= kMultB;
    value *= draw_hash;
    value ^= value >> 16;
    if (i % 2 == 0) {
      words[i / 2] = value;
    } else {
      words[i / 2] |= uint64_t(value) << 32;
    }
  }
  // PCG64 seeded with state words[0..1] and stream words[2..3].
  const State initial = (State(words[0]) << 64) | words[1];
  increment_ = (((State(words[2]) << 64) | words[3]) << 1) | 1;
  (void)next64();
  state_ += initial;
  (void)next64();
}

uint64_t NumpyDraws::next64() {
  const State multiplier = (State(2549297995355413924ULL) << 64) | 4865540595714422341ULL;
  state_ = state_ * multiplier + increment_;
  const uint64_t folded = uint64_t(state_ >> 64) ^ uint64_t(state_);
  const unsigned rotation = unsigned(state_ >> 122);
  return (folded >> rotation) | (folded << ((64 - rotation) & 63));
}

uint32_t NumpyDraws::next32() {
  if (has_half_) {
    has_half_ = false;
    return half_;
  }
  const uint64_t next = next64();
  has_half_ = true;
  half_ = uint32_t(next >> 32);
  return uint32_t(next);
}

uint32_t NumpyDraws::below(uint32_t n) {
  if (n == 0) throw InternalError("NumpyDraws::below(0)");
  uint64_t m = uint64_t(next32()) * n;
  uint32_t leftover = uint32_t(m);
  if (leftover < n) {
    const uint32_t threshold = uint32_t(-n) % n;
    while (leftover < threshold) {
      m = uint64_t(next32()) * n;
      leftover = uint32_t(m);
    }
  }
  return uint32_t(m >> 32);
}

Confidence confidence(const std::vector<SegmentStats>& segments, const CorpusScore& score,
                      int samples, uint64_t seed) {
  if (samples <= 0) throw ConfigError("--confidence needs a positive number of resamples");
  if (segments.empty()) throw DataError("bootstrap: no segments to resample");
  if (segments.size() > 0xffffffffULL) throw ConfigError("--confidence: too many segments");
  NumpyDraws draws(seed);
  std::vector<size_t> picks(segments.size());
  std::vector<double> scores(static_cast<size_t>(samples));
  for (double& s : scores) {
    for (size_t& p : picks) p = draws.below(static_cast<uint32_t>(segments.size()));
    s = score(sum_of(segments, &picks));
  }
  BootstrapResult r;
  mean_and_ci(scores, r);
  return {r.mean, r.ci};
}

}  // namespace heed::eval
