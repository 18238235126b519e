// Comparing systems that were each trained several times (seeds), after Clark et al. 2011
// ("Better Hypothesis Testing for Statistical Machine Translation: Controlling for Optimizer
// Instability", MultEval): a difference between two systems must hold across their runs as well
// as across the test set's segments (Koehn 2004). A two-level (hierarchical) bootstrap measures
// both: each resample draws, per system, its runs with replacement, and one set of segment
// indices with replacement that every system and run shares (paired); the corpus score of each
// run is recomputed from summed segment statistics. A system's resampled score is the mean of
// all its runs on the resample plus λ times the drawn runs' deviation from it, λ = √(n/(n−1))
// for n runs (1 for one run): Rao & Wu's rescaling (1988, m = n draws, seeds an unbounded
// population), since n draws with replacement give the mean a variance of (n−1)/n · s²/n, half
// the usual s²/n with two seeds, and an interval over few seeds would be that much too narrow.
// The first system is the baseline; every other is compared with it. Beside the bootstrap,
// Welch's t-test over the runs' scores alone (student_t.h) says what the seeds by themselves
// support: with two or three runs a side, its interval is the one whose width matches them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "heed/eval/bootstrap.h"
#include "heed/eval/student_t.h"

namespace heed::eval {

// One system: runs[r][i] holds the statistics of segment i in run r (every run of every system
// has the same segments).
using SystemRuns = std::vector<std::vector<SegmentStats>>;

struct MultiRunOptions {
  int samples = 1000;  // resamples B
  std::uint64_t seed = 12345;
  double equivalence_margin = 0.5;  // TOST at ±margin, in score points (BLEU or chrF)
  int threads = 1;  // resamples scored in parallel; the draws and every figure are the same
};

// A p-value estimated from B resamples. less_than: no resample was as extreme as the test asks,
// so the estimate is below the resampling floor, and value is that floor, 1/(B+1) (or a bound
// derived from it, after Holm); it is then written "< value", never as 0 or as the floor itself.
struct PValue {
  double value = 1;
  bool less_than = false;
};
// "0.0240", "1.0000", "2.0e-06" (below 0.0001); a bound with three significant digits rounded
// up: "< 0.001" for 1/1001.
std::string format_p_value(const PValue& p);
// Whether p < alpha: an exact value below alpha, or a bound "< v" with v ≤ alpha.
bool below(const PValue& p, double alpha);
// The level of the equivalence verdict (TOST).
inline constexpr double kAlpha = 0.05;

// Two-sided p-value for "no difference" from the resampled differences (any order): twice the
// share of resamples on the far side of 0 from the bulk, 2·min(#{d ≤ 0}, #{d ≥ 0}) / B, at most
// 1 (the percentile interval inverted: p < α about when the 1 − α interval excludes 0). Ties
// with 0 count on both sides, so identical systems get p = 1. When every resample is on one
// side, p < 1/(B+1).
PValue two_sided_p(const std::vector<double>& differences);

// Holm–Bonferroni step-down adjustment of a family of p-values (same order as given): the k-th
// smallest becomes max over j ≤ k of min(1, (m − j + 1)·p_(j)). A bound in ("< v") stays a bound
// where it decides the maximum.
std::vector<PValue> holm_adjust(const std::vector<PValue>& p);

// Equivalence within ±margin by two one-sided tests (TOST, α = kAlpha), from resampled
// differences: the 90% percentile interval, the TOST p-value max(#{d ≤ −margin},
// #{d ≥ +margin}) / B (< 1/(B+1) when both are 0), and the verdict, equivalent when p_holm is
// below α. tost() alone is a family of one (p_holm = p); compare_runs adjusts p over its
// comparisons. (The verdict was the 90% interval inside (−margin, +margin): the same test
// unadjusted, up to the interval's order statistics.)
struct Equivalence {
  Interval ci90;
  PValue p;
  PValue p_holm;
  bool equivalent = false;
};
Equivalence tost(const std::vector<double>& differences, double margin);

struct SystemComparison {
  int runs = 0;
  std::vector<double> run_scores;  // corpus score of each run
  double mean = 0;                 // over the runs
  double sd = 0;                   // sample standard deviation over the runs; NaN with one run
  double resampled_mean = 0;       // of the resampled scores (rescaled as above)
  double ci = 0;                   // half width of their 95% interval (as BootstrapResult::ci)
  // Against the baseline (left at these values for the baseline itself).
  double difference = 0;    // mean − the baseline's mean
  Interval ci95;            // percentile interval of the resampled differences
  PValue p;                 // two_sided_p of the resampled differences
  PValue p_holm;            // Holm-adjusted over the comparisons (systems 1..S−1)
  Equivalence equivalence;  // p_holm and the verdict adjusted over the same comparisons
  // Welch's t-test of run_scores against the baseline's (the seeds alone, not the segments):
  // defined with ≥ 2 runs on both sides that vary on at least one; its difference is the one
  // above. welch_p_holm: Holm over the comparisons whose test is defined.
  WelchTest welch;
  PValue welch_p_holm;
};

// One resample's draws, sized by the caller: segments[k] for k < N (indices < N), runs[s][k]
// for k < R_s (indices < R_s).
struct Resample {
  std::vector<size_t> segments;
  std::vector<std::vector<size_t>> runs;
};
// Fills draw with the next resample's indices.
using DrawResample = std::function<void(Resample& draw)>;
// Seeded draws: the segment indices from the stream and in the order paired_bootstrap draws
// them, the runs from a stream of their own. With one run per system the resamples are thus
// exactly paired_bootstrap's (same seed: same segments, every corpus score equal).
DrawResample seeded_draws(std::uint64_t seed);

// The bytes compare_runs holds at once for systems of runs_per_system runs over segments
// segments with statistics of dims numbers (the runs' table, every system's resampled scores, a
// block of resamples and the threads' buffers): what a tool checks against the machine's memory
// before it reads the runs, as the other tools refuse sizes that cannot fit.
double compare_runs_bytes(const std::vector<size_t>& runs_per_system, size_t segments, size_t dims,
                          const MultiRunOptions& options);

// The comparison with seeded draws (options.samples resamples, options.seed).
std::vector<SystemComparison> compare_runs(const std::vector<SystemRuns>& systems,
                                           const CorpusScore& score,
                                           const MultiRunOptions& options);
// The same with the resamples given by draw, called samples times in order from one thread
// (tests script them or enumerate every resample); threads score them (score must be safe to call
// from several threads at once).
std::vector<SystemComparison> compare_runs(const std::vector<SystemRuns>& systems,
                                           const CorpusScore& score, int samples,
                                           double equivalence_margin, const DrawResample& draw,
                                           int threads = 1);

}  // namespace heed::eval
