// Paired bootstrap resampling (Koehn 2004) as sacreBLEU's --paired-bs: resample segments with
// replacement, recompute the corpus score of every system from summed segment statistics on
// each resample, and report mean, 95% confidence interval and the p-value of each system's
// difference to the baseline.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace heed::eval {

// Sufficient statistics of one segment; they add up over segments.
using SegmentStats = std::vector<double>;
using CorpusScore = std::function<double(const SegmentStats& summed)>;

// The equal-tailed percentile interval of resampled values (any order) at coverage (0.95: the
// order statistics ⌊n·0.025⌋ and n − 1 − ⌊n·0.025⌋ of n values, as sacreBLEU's estimate_ci).
struct Interval {
  double low = 0;
  double high = 0;
};
Interval percentile_interval(std::vector<double> values, double coverage);

// The random stream paired_bootstrap draws its segment indices from (make_rng(seed, stream)):
// the multi-run comparison (multi_run.h) draws them from the same one.
inline constexpr std::uint64_t kSegmentDrawStream = 0xb007;

struct BootstrapResult {
  double score = 0;    // on the full test set
  double mean = 0;     // over the resamples
  double ci = 0;       // half width of the 95% interval (sacreBLEU's estimate_ci)
  double p_value = 1;  // against the baseline (system 0); 1 for the baseline itself
};

// systems[s][i]: statistics of segment i for system s; every system has the same segments.
std::vector<BootstrapResult> paired_bootstrap(const std::vector<std::vector<SegmentStats>>& systems,
                                              const CorpusScore& score, int samples, uint64_t seed);

// sacreBLEU's --confidence for one system: `samples` resamples of the segments, drawn exactly as
// sacreBLEU draws them (numpy's default_rng(seed).choice(segments, (samples, segments))), so the
// mean and interval are sacreBLEU's figures; ci is half the width of the 95% interval.
struct Confidence {
  double mean = 0;
  double ci = 0;
};
Confidence confidence(const std::vector<SegmentStats>& segments, const CorpusScore& score,
                      int samples, uint64_t seed);

// numpy's default_rng(seed) (SeedSequence, then PCG64) and its integers below a bound
// (Generator.choice with replacement): the draws of sacreBLEU's --confidence.
class NumpyDraws {
 public:
  explicit NumpyDraws(uint64_t seed);
  uint64_t next64();
  uint32_t next32();
  // An integer in [0, n), n < 2^32 (numpy's buffered Lemire method).
  uint32_t below(uint32_t n);

 private:
  __extension__ using State = unsigned __int128;
  State state_ = 0;
  State increment_ = 0;
  bool has_half_ = false;
  uint32_t half_ = 0;
};

}  // namespace heed::eval
