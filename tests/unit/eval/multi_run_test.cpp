#include "heed/eval/multi_run.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "heed/common/error.h"
#include "heed/eval/bleu.h"

using namespace heed;
using eval::PValue;

namespace {

// Statistics [correct, total]; the corpus score is 100·Σcorrect / Σtotal (a corpus-level ratio,
// as BLEU's precisions are).
double accuracy(const eval::SegmentStats& s) {
  return 100.0 * s[0] / s[1];
}

// One run of two segments, each with 2 items: correct counts c0 and c1.
std::vector<eval::SegmentStats> run(double c0, double c1) {
  return {{c0, 2}, {c1, 2}};
}

// Every resample of the hand-worked case, each once: 4 segment draws × 4 run draws of each of
// the two systems (2 runs each) = 64 equally likely resamples, the exact bootstrap distribution.
eval::DrawResample enumerate_all() {
  return [b = 0](eval::Resample& d) mutable {
    const int segments = b / 16, first = (b / 4) % 4, second = b % 4;
    d.segments = {size_t(segments >> 1), size_t(segments & 1)};
    d.runs = {{size_t(first >> 1), size_t(first & 1)}, {size_t(second >> 1), size_t(second & 1)}};
    ++b;
  };
}

std::vector<eval::SegmentStats> bleu_run(const std::vector<std::string>& hyps,
                                         const std::vector<std::string>& refs) {
  std::vector<eval::SegmentStats> out;
  for (size_t i = 0; i < hyps.size(); ++i) {
    out.push_back(eval::to_vector(eval::segment_stats(hyps[i], {refs[i]}, {})));
  }
  return out;
}

double bleu(const eval::SegmentStats& v) {
  return eval::bleu_from_stats(eval::bleu_stats_from_vector(v), {}).score;
}

}  // namespace

// The hand-worked case. Baseline A: run 0 gets (1, 1) of (2, 2) right, run 1 (2, 0); system B:
// run 0 (2, 1), run 1 (2, 2). A run's score on a resample is 25·(c_i + c_j) for the segments
// (i, j) drawn. Scores: A 50, 50 (mean 50, sd 0); B 75, 100 (mean 87.5, sd 12.5·√2).
// A system's resampled score is its two runs' mean m on the segments drawn, plus √2 (Rao & Wu,
// n = 2) times the drawn runs' deviation from m: m − √2·h (run draw (0, 0), 1 in 4), m (2 in 4)
// and m + √2·h (1 in 4), h = half the second run's score minus the first's. Per segment draw
// (A's runs; B's runs), with r = 25·√2:
//   (0,0): A 50, 100 (m 75, h 25); B 100, 100  → B − A = 25 + r ×4, 25 ×8, 25 − r ×4
//   (0,1), (1,0): A 50, 50; B 75, 100 (m 87.5, h 12.5) → 37.5 − r/2 ×4, 37.5 ×8, 37.5 + r/2 ×4
//   (1,1): A 50, 0 (m 25, h −25); B 50, 100 (m 75, h 25) → 50 + k·r for k = −2..2, ×1 4 6 4 1
// Sorted (64): 50 − 2r ×1, 25 − r ×4, 50 − r ×4, 37.5 − r/2 ×8, 25 ×8, 37.5 ×16, 50 ×6,
// 37.5 + r/2 ×8, 25 + r ×4, 50 + r ×4, 50 + 2r ×1 (mean 37.5: the rescaling keeps the mean).
TEST_CASE("multi-run: the hand-worked case, every resample enumerated", "[eval][fast]") {
  const std::vector<eval::SystemRuns> systems = {{run(1, 1), run(2, 0)}, {run(2, 1), run(2, 2)}};
  auto r = eval::compare_runs(systems, accuracy, 64, 0.5, enumerate_all());
  REQUIRE(r.size() == 2);
  CHECK(r[0].runs == 2);
  CHECK(r[0].run_scores == std::vector<double>{50, 50});
  CHECK(r[0].mean == 50);
  CHECK(r[0].sd == 0);
  CHECK(r[1].run_scores == std::vector<double>{75, 100});
  CHECK(r[1].mean == 87.5);
  CHECK(r[1].sd == Approx(12.5 * std::sqrt(2.0)));
  CHECK(r[1].difference == 37.5);
  // Resampled means: A 75, 50, 50, 25 per segment draw (mean 50); B 100, 87.5, 87.5, 75.
  CHECK(r[0].resampled_mean == Approx(50));
  CHECK(r[1].resampled_mean == Approx(87.5));
  // 95%: order statistics ⌊64·0.025⌋ = 1 and 62 (0-based); 90%: 3 and 60.
  const double rr = 25 * std::sqrt(2.0);
  CHECK(r[1].ci95.low == Approx(25 - rr));
  CHECK(r[1].ci95.high == Approx(50 + rr));
  CHECK(r[1].equivalence.ci90.low == Approx(25 - rr));
  CHECK(r[1].equivalence.ci90.high == Approx(50 + rr));
  // 5 differences ≤ 0 (50 − 2r, 25 − r ×4), 59 ≥ 0: p = 2·5/64. One comparison: Holm leaves it.
  CHECK(r[1].p.value == 2.0 * 5 / 64);
  CHECK_FALSE(r[1].p.less_than);
  CHECK(r[1].p_holm.value == r[1].p.value);
  // TOST at ±0.5: 59 differences ≥ 0.5, 5 ≤ −0.5.
  CHECK(r[1].equivalence.p.value == 59.0 / 64);
  CHECK_FALSE(r[1].equivalence.equivalent);
  // At ±90 the 90% interval [25 − r, 50 + r] = [−10.4, 85.4] is inside; one difference
  // (50 + 2r = 120.7) is ≥ 90: p = 1/64.
  // The verdict is TOST p < 0.05, Holm-adjusted: one comparison leaves p as it is.
  auto wide = eval::compare_runs(systems, accuracy, 64, 90, enumerate_all());
  CHECK(wide[1].equivalence.equivalent);
  CHECK(wide[1].equivalence.p.value == 1.0 / 64);
  CHECK(wide[1].equivalence.p_holm.value == 1.0 / 64);
  // Welch over the runs alone: A 50, 50 (no spread), B 75, 100: se = √(312.5/2) = 12.5, df = 1
  // (only B's runs vary), t = 37.5/12.5 = 3, p = 1 − 2·atan(3)/π (Cauchy); the interval
  // 37.5 ± t(0.975, 1)·12.5 = 37.5 ± tan(0.475π)·12.5 = [−121.3, +196.3]: the seeds alone
  // support no difference.
  const double pi = std::acos(-1.0);
  CHECK(r[1].welch.defined);
  CHECK(r[1].welch.difference == r[1].difference);
  CHECK(r[1].welch.df == Approx(1));
  CHECK(r[1].welch.p == Approx(1 - 2 * std::atan(3.0) / pi));
  CHECK(r[1].welch.ci95.low == Approx(37.5 - std::tan(0.475 * pi) * 12.5));
  CHECK(r[1].welch.ci95.high == Approx(37.5 + std::tan(0.475 * pi) * 12.5));
  CHECK(r[1].welch_p_holm.value == r[1].welch.p);
  CHECK_FALSE(r[1].welch_p_holm.less_than);
  CHECK_FALSE(r[0].welch.defined);  // the baseline is not compared with itself
}

TEST_CASE("multi-run: the run draws are rescaled by √(n/(n−1)) about the runs' mean",
          "[eval][fast]") {
  // One segment, so the segment draws change nothing: the resampled scores spread over the runs
  // alone. With n runs x_1..x_n, the exact variance over every run draw is
  // λ² · (1/n) · (1/n)Σ(x − x̄)² = s²/n (λ² = n/(n−1)), where plain draws give (n−1)/n of it.
  // Three runs scoring 0, 50 and 100 (of 2 items: 0, 1, 2 right): s² = 2500, s²/3 = 833.3;
  // all 27 run draws enumerated, the baseline the same runs.
  const eval::SystemRuns three = {{{0, 2}}, {{1, 2}}, {{2, 2}}};
  int b = 0;
  auto every_draw = [&b](eval::Resample& d) {
    d.segments = {0};
    d.runs = {{0, 0, 0}, {size_t(b / 9), size_t(b / 3 % 3), size_t(b % 3)}};
    ++b;
  };
  const eval::SystemRuns zero = {{{0, 2}}, {{0, 2}}, {{0, 2}}};
  // The baseline's three runs all score 0, so each difference is the system's resampled score.
  auto r = eval::compare_runs({zero, three}, accuracy, 27, 0.5, every_draw);
  CHECK(r[1].sd * r[1].sd == Approx(2500));
  CHECK(r[1].resampled_mean == Approx(50));
  // The 95% interval of 27 resamples: order statistics 0 and 26 (0-based), the run draws
  // (0, 0, 0) and (2, 2, 2): 50 ∓ √(3/2)·50.
  CHECK(r[1].ci95.low == Approx(50 - std::sqrt(1.5) * 50));
  CHECK(r[1].ci95.high == Approx(50 + std::sqrt(1.5) * 50));
}

TEST_CASE("multi-run: identical systems", "[eval][fast]") {
  // The same two runs as both systems: the exact distribution of the differences is symmetric
  // (swap the two systems' run draws), so as many are ≤ 0 as ≥ 0 and p = 1. The point
  // difference is 0 and the interval is symmetric around it; the runs differ, so the
  // differences spread and ±0.5 is not shown.
  const eval::SystemRuns a = {run(1, 1), run(2, 0)};
  auto r = eval::compare_runs({a, a}, accuracy, 64, 0.5, enumerate_all());
  CHECK(r[1].difference == 0);
  CHECK(r[1].ci95.low == -r[1].ci95.high);
  CHECK(r[1].ci95.low < 0);
  CHECK(r[1].p.value == 1);
  CHECK(r[1].p_holm.value == 1);
  CHECK_FALSE(r[1].equivalence.equivalent);

  // Identical outputs in every run: every resampled difference is 0. Difference 0, interval
  // [0, 0], p = 1 (also after Holm over two comparisons), equivalent at ±0.5 with TOST p below
  // the floor.
  const eval::SystemRuns same = {run(1, 2), run(1, 2), run(1, 2)};
  for (uint64_t seed : {1, 2, 3}) {
    auto s = eval::compare_runs({same, same, same}, accuracy, {200, seed, 0.5});
    for (size_t k = 1; k < 3; ++k) {
      CHECK(s[k].difference == 0);
      CHECK(s[k].ci95.low == 0);
      CHECK(s[k].ci95.high == 0);
      CHECK(s[k].p.value == 1);
      CHECK_FALSE(s[k].p.less_than);
      CHECK(s[k].p_holm.value == 1);
      CHECK(s[k].equivalence.equivalent);
      CHECK(s[k].equivalence.p.less_than);
      CHECK_FALSE(s[k].welch.defined);                                 // no run varies
      CHECK(eval::format_p_value(s[k].equivalence.p) == "< 0.00498");  // 1/201
    }
  }
}

TEST_CASE("multi-run: better on every segment in every run", "[eval][fast]") {
  // Every run of B matches the reference exactly; every run of A misses words, with the same
  // lengths: on any resample every B run has more n-gram matches over the same totals, so every
  // resampled difference is > 0.
  const std::vector<std::string> refs = {"the cat sat on the mat", "a dog barked at the moon",
                                         "we went home early today"};
  const eval::SystemRuns a = {
      bleu_run({"the cat sat on a mat", "a dog barked at the sun", "we went home late today"},
               refs),
      bleu_run({"the dog sat on the mat", "a dog barked on the moon", "we went there early today"},
               refs)};
  const eval::SystemRuns b = {bleu_run(refs, refs), bleu_run(refs, refs), bleu_run(refs, refs)};
  auto r = eval::compare_runs({a, b}, bleu, {200, 7, 0.5});
  CHECK(r[1].mean == Approx(100));
  CHECK(r[1].sd == 0);
  CHECK(r[1].ci95.low > 0);
  CHECK(r[1].difference > r[1].ci95.low);
  CHECK(r[1].p.less_than);
  CHECK(r[1].p.value == 1.0 / 201);
  CHECK(eval::format_p_value(r[1].p) == "< 0.00498");
  CHECK(r[1].p_holm.less_than);
  CHECK_FALSE(r[1].equivalence.equivalent);
  CHECK(r[1].equivalence.p.value == 1.0);  // every difference is far beyond +0.5
}

TEST_CASE("multi-run: one run per system is paired_bootstrap's resampling", "[eval][fast]") {
  // With one run per system the run draws are trivial and the segment draws come from
  // paired_bootstrap's stream in its order: every resampled corpus score is the same number, so
  // each system's score, resampled mean and 95% half width are equal to the last bit. The
  // p-values are different tests of the same resamples (paired_bootstrap: sacreBLEU's shifted
  // |difference|; here: the percentile interval's), so they are not compared.
  std::vector<std::string> refs, h0, h1, h2;
  const std::vector<std::string> words = {"the", "a", "cat", "dog", "sat", "ran", "on", "mat"};
  for (size_t i = 0; i < 40; ++i) {
    std::string ref, a, b, c;
    for (size_t k = 0; k < 4 + i % 5; ++k) {
      const std::string& w = words[(i * 7 + k * 3) % words.size()];
      const std::string& other = words[(i + k) % words.size()];
      ref += (k ? " " : "") + w;
      a += (k ? " " : "") + (k % 3 == 0 ? other : w);
      b += (k ? " " : "") + (k % 4 == 1 ? other : w);
      c += (k ? " " : "") + ((i + k) % 5 == 0 ? other : w);
    }
    refs.push_back(ref);
    h0.push_back(a);
    h1.push_back(b);
    h2.push_back(c);
  }
  const std::vector<std::vector<eval::SegmentStats>> single = {
      bleu_run(h0, refs), bleu_run(h1, refs), bleu_run(h2, refs)};
  const auto paired = eval::paired_bootstrap(single, bleu, 300, 99);
  const auto multi =
      eval::compare_runs({{single[0]}, {single[1]}, {single[2]}}, bleu, {300, 99, 0.5});
  for (size_t s = 0; s < 3; ++s) {
    CHECK(multi[s].runs == 1);
    CHECK(std::isnan(multi[s].sd));
    CHECK(multi[s].mean == paired[s].score);
    CHECK(multi[s].resampled_mean == paired[s].mean);
    CHECK(multi[s].ci == paired[s].ci);
  }
  CHECK(multi[1].difference == paired[1].score - paired[0].score);
}

TEST_CASE("multi-run: seeded, deterministic", "[eval][fast]") {
  const std::vector<eval::SystemRuns> systems = {{run(1, 1), run(2, 0), run(1, 0)},
                                                 {run(2, 1), run(2, 2), run(1, 2)}};
  auto a = eval::compare_runs(systems, accuracy, {100, 5, 0.5});
  auto b = eval::compare_runs(systems, accuracy, {100, 5, 0.5});
  auto c = eval::compare_runs(systems, accuracy, {100, 6, 0.5});
  CHECK(a[1].ci95.low == b[1].ci95.low);
  CHECK(a[1].p.value == b[1].p.value);
  CHECK(a[1].resampled_mean == b[1].resampled_mean);
  CHECK(a[1].resampled_mean != c[1].resampled_mean);
}

TEST_CASE("multi-run: sizes are checked", "[eval][fast]") {
  const eval::SystemRuns a = {run(1, 1)};
  CHECK_THROWS_AS(eval::compare_runs({a, a}, accuracy, {0, 1, 0.5}), ConfigError);
  CHECK_THROWS_AS(eval::compare_runs({a, a}, accuracy, {10, 1, 0}), ConfigError);
  CHECK_THROWS_AS(eval::compare_runs({a, a}, accuracy, {10, 1, std::nan("")}), ConfigError);
  CHECK_THROWS_AS(eval::compare_runs({a, {}}, accuracy, {10, 1, 0.5}), InternalError);
  CHECK_THROWS_AS(eval::compare_runs({}, accuracy, {10, 1, 0.5}), InternalError);
  CHECK_THROWS_AS(eval::compare_runs({a, {{{1, 2}}}}, accuracy, {10, 1, 0.5}), InternalError);
  CHECK_THROWS_AS(eval::compare_runs({{{}}}, accuracy, {10, 1, 0.5}), DataError);
}

TEST_CASE("holm: a hand-worked family", "[eval][fast]") {
  // Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04 → running maximum
  // 0.02, 0.03, 0.06, 0.06, given back in the original order.
  auto adjusted = eval::holm_adjust({{0.01}, {0.04}, {0.03}, {0.005}});
  REQUIRE(adjusted.size() == 4);
  CHECK(adjusted[0].value == Approx(0.03));
  CHECK(adjusted[1].value == Approx(0.06));
  CHECK(adjusted[2].value == Approx(0.06));
  CHECK(adjusted[3].value == Approx(0.02));
  for (const PValue& p : adjusted) CHECK_FALSE(p.less_than);
  // Capped at 1.
  auto capped = eval::holm_adjust({{0.6}, {0.7}});
  CHECK(capped[0].value == 1);
  CHECK(capped[1].value == 1);
  // A bound stays a bound where it decides: "< 0.001" ×3 = "< 0.003"; 0.02 ×2; 0.5.
  auto bounds = eval::holm_adjust({{0.5}, {0.001, true}, {0.02}});
  CHECK(bounds[1].less_than);
  CHECK(bounds[1].value == Approx(0.003));
  CHECK(bounds[2].value == Approx(0.04));
  CHECK_FALSE(bounds[2].less_than);
  CHECK(bounds[0].value == 0.5);
  // 0.004 ×2 = 0.008, then "< 0.01" ×1: the maximum lies below 0.01, a bound.
  auto later = eval::holm_adjust({{0.01, true}, {0.004}});
  CHECK(later[1].value == Approx(0.008));
  CHECK(later[0].less_than);
  CHECK(later[0].value == Approx(0.01));
  // "< 0.001" ×2 = "< 0.002", then 0.0015: the true maximum is in [0.0015, 0.002), a bound.
  auto bounded = eval::holm_adjust({{0.001, true}, {0.0015}});
  CHECK(bounded[1].less_than);
  CHECK(bounded[1].value == Approx(0.002));
  // An exact term equal to a bound decides it: exact.
  auto tie = eval::holm_adjust({{0.001, true}, {0.002}});
  CHECK_FALSE(tie[1].less_than);
  CHECK(tie[1].value == Approx(0.002));
  CHECK(eval::holm_adjust({}).empty());
}

TEST_CASE("tost: a hand-worked interval", "[eval][fast]") {
  // 20 differences −0.45, −0.40, …, 0.50; 90%: order statistics ⌊20·0.05⌋ = 1 and 18.
  std::vector<double> d;
  for (int k = 0; k < 20; ++k) d.push_back((-45 + 5 * k) / 100.0);
  auto e = eval::tost(d, 0.5);
  CHECK(e.ci90.low == Approx(-0.40));
  CHECK(e.ci90.high == Approx(0.45));
  CHECK(e.p.value == Approx(1.0 / 20));  // one difference (0.50) reaches +0.5, none −0.5
  // The verdict is p < 0.05 (a family of one: p_holm = p): p = 0.05 is not below, although
  // the 90% interval (order statistics 1 and 18) lies inside the margins.
  CHECK(e.p_holm.value == e.p.value);
  CHECK_FALSE(e.equivalent);
  // At ±0.55 none reaches the margins: p < 1/21, equivalent.
  CHECK(eval::tost(d, 0.55).equivalent);
  // At ±0.45 the upper end touches the margin: not inside; 2 reach +0.45, 1 reaches −0.45.
  auto tight = eval::tost(d, 0.45);
  CHECK_FALSE(tight.equivalent);
  CHECK(tight.p.value == Approx(2.0 / 20));
  // Wide: none reaches ±1, so p is below the floor 1/21.
  auto wide = eval::tost(d, 1.0);
  CHECK(wide.equivalent);
  CHECK(wide.p.less_than);
  CHECK(wide.p.value == 1.0 / 21);
}

TEST_CASE("multi-run: the equivalence verdict is Holm-adjusted over the comparisons",
          "[eval][fast]") {
  // Identical one-run systems: every resampled difference is 0, the 90% interval [0, 0] and
  // each TOST p below the floor 1/(B+1) = 1/41. Against one system that is below 0.05:
  // equivalent. Against three, Holm makes each "< 3/41" = "< 0.0732", not below 0.05: the 40
  // resamples cannot show three equivalences at once.
  const eval::SystemRuns one = {run(1, 2)};
  const auto pair = eval::compare_runs({one, one}, accuracy, {40, 3, 0.5});
  CHECK(pair[1].equivalence.p_holm.less_than);
  CHECK(pair[1].equivalence.p_holm.value == Approx(1.0 / 41));
  CHECK(pair[1].equivalence.equivalent);
  const auto four = eval::compare_runs({one, one, one, one}, accuracy, {40, 3, 0.5});
  for (size_t s = 1; s < 4; ++s) {
    CHECK(four[s].equivalence.ci90.low == 0);
    CHECK(four[s].equivalence.ci90.high == 0);
    CHECK(four[s].equivalence.p.value == Approx(1.0 / 41));
    CHECK(four[s].equivalence.p_holm.less_than);
    CHECK(four[s].equivalence.p_holm.value == Approx(3.0 / 41));
    CHECK(eval::format_p_value(four[s].equivalence.p_holm) == "< 0.0732");
    CHECK_FALSE(four[s].equivalence.equivalent);
    CHECK_FALSE(four[s].welch.defined);  // one run a side
  }
}

TEST_CASE("multi-run: Welch's test over the runs, Holm over the comparisons that have one",
          "[eval][fast]") {
  // A baseline of 3 runs; x of 3 and z of 2 runs get a Welch test, y (1 run) none, and Holm
  // runs over x and z alone. Each test is welch_test of the run scores.
  const std::vector<eval::SystemRuns> systems = {{run(1, 1), run(2, 0), run(1, 0)},
                                                 {run(2, 1), run(2, 2), run(1, 2)},
                                                 {run(2, 2)},
                                                 {run(0, 1), run(1, 2)}};
  const auto r = eval::compare_runs(systems, accuracy, {100, 5, 0.5});
  CHECK_FALSE(r[0].welch.defined);
  CHECK_FALSE(r[2].welch.defined);
  const std::vector<size_t> tested = {1, 3};
  std::vector<PValue> raw;
  for (size_t s : tested) {
    const eval::WelchTest w = eval::welch_test(r[0].run_scores, r[s].run_scores);
    REQUIRE(r[s].welch.defined);
    CHECK(r[s].welch.p == w.p);
    CHECK(r[s].welch.ci95.low == w.ci95.low);
    CHECK(r[s].welch.ci95.high == w.ci95.high);
    CHECK(r[s].welch.difference == r[s].difference);
    raw.push_back({w.p, false});
  }
  const auto adjusted = eval::holm_adjust(raw);
  CHECK(r[1].welch_p_holm.value == adjusted[0].value);
  CHECK(r[3].welch_p_holm.value == adjusted[1].value);
  // TOST over all three comparisons, the verdict from the adjusted p.
  const auto tost_holm =
      eval::holm_adjust({r[1].equivalence.p, r[2].equivalence.p, r[3].equivalence.p});
  for (size_t s = 1; s < 4; ++s) {
    CHECK(r[s].equivalence.p_holm.value == tost_holm[s - 1].value);
    CHECK(r[s].equivalence.equivalent == eval::below(r[s].equivalence.p_holm, eval::kAlpha));
  }
}

TEST_CASE("p below alpha, bounds included", "[eval][fast]") {
  CHECK(eval::below({0.049}, 0.05));
  CHECK_FALSE(eval::below({0.05}, 0.05));
  CHECK(eval::below({0.05, true}, 0.05));  // "< 0.05"
  CHECK_FALSE(eval::below({0.0732, true}, 0.05));
}

TEST_CASE("two-sided p and its text", "[eval][fast]") {
  CHECK(eval::two_sided_p({1, 2, 3, -1}).value == 0.5);                 // 2·1/4
  CHECK(eval::two_sided_p({0, 0, 0}).value == 1);                       // ties on both sides
  CHECK(eval::two_sided_p({1, 2, 3}).less_than);                        // all above 0
  CHECK(eval::two_sided_p({-1, -2, -3, -4}).value == Approx(1.0 / 5));  // all below 0
  CHECK(eval::format_p_value({0.024}) == "0.0240");
  CHECK(eval::format_p_value({1.0}) == "1.0000");
  CHECK(eval::format_p_value({2e-6}) == "2.0e-06");
  CHECK(eval::format_p_value({1.0 / 1001, true}) == "< 0.001");  // B = 1000
  CHECK(eval::format_p_value({1.0 / 21, true}) == "< 0.0477");
  CHECK(eval::format_p_value({3.0 / 1001, true}) == "< 0.003");  // after Holm over 3
}

TEST_CASE("multi-run: any thread count gives the same figures", "[eval][fast]") {
  // Systems of 1, 2 and 3 runs, statistics that are not integers, and a number of resamples
  // that leaves a partial block: every figure must be equal, not merely close.
  const std::vector<eval::SystemRuns> systems = {
      {run(1.5, 0.25)}, {run(2, 1), run(0.5, 2)}, {run(1, 1.75), run(2, 0), run(0.125, 1)}};
  const auto one = eval::compare_runs(systems, accuracy, {130, 9, 0.5, 1});
  for (int threads : {2, 3, 8}) {
    const auto many = eval::compare_runs(systems, accuracy, {130, 9, 0.5, threads});
    REQUIRE(many.size() == one.size());
    for (size_t s = 0; s < one.size(); ++s) {
      CHECK(many[s].run_scores == one[s].run_scores);
      CHECK(many[s].resampled_mean == one[s].resampled_mean);
      CHECK(many[s].ci == one[s].ci);
      CHECK(many[s].ci95.low == one[s].ci95.low);
      CHECK(many[s].ci95.high == one[s].ci95.high);
      CHECK(many[s].p.value == one[s].p.value);
      CHECK(many[s].p_holm.value == one[s].p_holm.value);
      CHECK(many[s].equivalence.p.value == one[s].equivalence.p.value);
      CHECK(many[s].equivalence.p_holm.value == one[s].equivalence.p_holm.value);
      CHECK(many[s].welch.p == one[s].welch.p);
      CHECK(many[s].welch_p_holm.value == one[s].welch_p_holm.value);
    }
  }
}

TEST_CASE("multi-run: the memory estimate grows with the systems times the resamples",
          "[eval][fast]") {
  eval::MultiRunOptions options;
  options.samples = 1000000;
  const double ten = eval::compare_runs_bytes(std::vector<size_t>(10, 1), 100, 10, options);
  const double twenty = eval::compare_runs_bytes(std::vector<size_t>(20, 1), 100, 10, options);
  // Each system adds its resampled scores, 8 bytes a resample, and a little for its run.
  CHECK(twenty - ten >= 10 * 8.0 * 1e6);
  CHECK(twenty - ten < 10 * 8.0 * 1e6 * 1.01);
  CHECK(ten >= 8.0 * 100 * 10 * 10);  // at least the table of statistics
}
