// heed-bench-attn's grid and report (tools/bench-attn/): the grid's lists and ranges, its expansion
// and its refusals, the FLOPs of a run composed from the mechanism's counts, the log-log fit on
// synthetic times, and the report's columns. No time is asserted.
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <sstream>
#include <string>

#include "bench-attn/report.h"
#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"

using namespace heed::bench_attn;
using namespace heed::attention;

namespace {

// One point of a tiny grid (the defaults would run every mechanism at six lengths).
BenchGrid tiny_grid(const std::string& mechanism) {
  BenchGrid grid;
  grid.mechanisms = {mechanism};
  grid.modes = {BenchMode::kStep};
  grid.passes = {BenchPass::kForwardBackward};
  grid.threads = {1};
  grid.batch = {2};
  grid.source_lengths = {5};
  grid.target_lengths = {3};
  grid.hidden = {8};
  grid.heads = {2};
  grid.windows = {1};
  return grid;
}

}  // namespace

TEST_CASE("bench lists take values and ranges", "[bench-attn][fast]") {
  CHECK(parse_int_list("batch", "64") == std::vector<int64_t>{64});
  CHECK(parse_int_list("batch", "1,2,8") == std::vector<int64_t>{1, 2, 8});
  CHECK(parse_int_list("s", "10:500:x2") == std::vector<int64_t>{10, 20, 40, 80, 160, 320});
  CHECK(parse_int_list("s", "10:40:x2") == std::vector<int64_t>{10, 20, 40});  // LAST reached
  CHECK(parse_int_list("s", "8:32:+8,100") == std::vector<int64_t>{8, 16, 24, 32, 100});
  CHECK(parse_int_list("s", "1:3:1") == std::vector<int64_t>{1, 2, 3});
  CHECK(parse_int_list("threads", "0,2", 0) == std::vector<int64_t>{0, 2});
  for (const char* bad : {"0", "-3", "", "1,,2", "x", "4.5", "10:5:x2", "1:10:x1", "1:10:+0",
                          "1:10", "1:10:x", "0:10:x2", "99999999999999999999"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_int_list("batch", bad), heed::ConfigError);
  }
  // One line naming the option.
  CHECK_THROWS_WITH(parse_int_list("source-length", "0"), Catch::Contains("--source-length"));
  CHECK_THROWS_AS(parse_int_list("s", "1:1000000:+1"), heed::ConfigError);  // a slip, not a grid
}

TEST_CASE("bench words are parsed or refused naming the option", "[bench-attn][fast]") {
  CHECK(parse_bench_mode("step") == BenchMode::kStep);
  CHECK(parse_bench_pass("forward-backward") == BenchPass::kForwardBackward);
  CHECK(parse_bench_format("json") == BenchFormat::kJson);
  CHECK(parse_on_off("precompute", "off") == false);
  CHECK_THROWS_WITH(parse_bench_mode("steps"), Catch::Contains("--mode"));
  CHECK_THROWS_WITH(parse_bench_format("csv"), Catch::Contains("--format"));
  CHECK_THROWS_WITH(parse_on_off("precompute", "yes"), Catch::Contains("--precompute"));
}

TEST_CASE("a bench grid expands to every combination once", "[bench-attn][fast]") {
  BenchGrid grid = tiny_grid("dot");
  grid.modes = {BenchMode::kAllSteps, BenchMode::kStep};
  grid.source_lengths = {5, 10, 20};
  grid.heads = {1, 2, 4};           // dot has no --heads: not multiplied
  grid.precompute = {true, false};  // nothing to precompute: one run
  const auto dot = expand_grid(grid);
  REQUIRE(dot.size() == 2 * 3);
  CHECK(dot[0].heads == 0);
  CHECK(dot[0].precompute == -1);
  CHECK(dot[0].source_length == 5);
  CHECK(dot[2].source_length == 20);

  grid.mechanisms = {"multi-head"};
  // 3 head counts; precompute on in both modes, off only when stepping: 3 × 3 × 3 points.
  CHECK(expand_grid(grid).size() == 3 * 3 * 3);

  grid.mechanisms = {"coverage"};  // stateful: steps only
  for (const BenchPoint& p : expand_grid(grid)) CHECK(p.mode == BenchMode::kStep);

  grid.mechanisms = {"mlp"};  // an alias: reported by its name
  CHECK(expand_grid(grid).front().mechanism == "additive");

  grid.mechanisms.clear();  // every registered mechanism
  std::set<std::string> seen;
  for (const BenchPoint& p : expand_grid(grid)) seen.insert(p.mechanism);
  CHECK(seen.size() == attention_names().size());
}

TEST_CASE("a bench grid the mechanisms refuse is refused before any work", "[bench-attn][fast]") {
  CHECK_THROWS_WITH(expand_grid(tiny_grid("nope")), Catch::Contains("unknown attention 'nope'"));
  BenchGrid heads = tiny_grid("multi-head");
  heads.heads = {3};  // does not divide 8
  CHECK_THROWS_WITH(expand_grid(heads), Catch::Contains("--heads 3 must divide"));
  BenchGrid window = tiny_grid("local-m");
  window.windows = {5000};
  CHECK_THROWS_WITH(expand_grid(window), Catch::Contains("--window"));
  BenchGrid none = tiny_grid("dot");
  none.modes = {BenchMode::kAllSteps};
  none.mechanisms = {"coverage"};
  CHECK_THROWS_WITH(expand_grid(none), Catch::Contains("no points"));
}

TEST_CASE("a bench run's FLOPs compose the mechanism's counts", "[bench-attn][fast]") {
  BenchPoint p = expand_grid(tiny_grid("general")).front();
  const AttentionConfig config = [] {
    AttentionConfig c;
    c.query_size = c.key_size = c.attention_dim = 8;
    return c;
  }();
  // Step mode: one prepare, T = 3 forwards and backwards of one query, one finish_backward.
  const AttentionFlops one = attention_flops("general", AttentionShape{2, 5, 1}, config);
  CHECK(point_flops(p) ==
        one.precompute + 3 * one.forward + 3 * one.backward + one.precompute_backward);
  // Without the precomputation every step redoes it (and its backward).
  p.precompute = 0;
  CHECK(point_flops(p) ==
        3 * (one.precompute + one.forward + one.backward + one.precompute_backward));
  // All steps at once: one forward of T queries = T forwards of one.
  p.precompute = 1;
  p.mode = BenchMode::kAllSteps;
  p.pass = BenchPass::kForward;
  CHECK(point_flops(p) == one.precompute + 3 * one.forward);
}

TEST_CASE("the growth exponent is the log-log slope of time in S", "[bench-attn][fast]") {
  // t = 0.01·S² exactly: slope 2; t = 3·S⁰: slope 0; noisy S^1.5 close to 1.5.
  const std::vector<double> s = {10, 20, 50, 100, 200, 500};
  std::vector<double> square, flat, noisy;
  for (size_t i = 0; i < s.size(); ++i) {
    square.push_back(0.01 * s[i] * s[i]);
    flat.push_back(3);
    noisy.push_back(std::pow(s[i], 1.5) * (i % 2 ? 1.05 : 0.95));
  }
  CHECK(log_log_slope(s, square) == Approx(2).epsilon(1e-12));
  CHECK(log_log_slope(s, flat) == Approx(0).margin(1e-12));
  CHECK(log_log_slope(s, noisy) == Approx(1.5).margin(0.05));
  CHECK(std::isnan(log_log_slope({10, 10}, {1, 2})));  // one distinct S: no slope

  // Grouped: points equal in everything but S share one fit, in the order first seen.
  BenchGrid grid = tiny_grid("dot");
  grid.mechanisms = {"dot", "linear"};
  grid.source_lengths = {10, 100, 1000};
  std::vector<BenchResult> results;
  for (const BenchPoint& p : expand_grid(grid)) {
    BenchResult r;
    r.point = p;
    // dot grows linearly per step in S, linear not at all.
    r.median_ms = p.mechanism == "dot" ? 0.002 * double(p.source_length) : 0.7;
    results.push_back(r);
  }
  const std::vector<GrowthFit> fits = growth_exponents(results);
  REQUIRE(fits.size() == 2);
  CHECK(fits[0].point.mechanism == "dot");
  CHECK(fits[0].exponent == Approx(1));
  CHECK(fits[0].points == 3);
  CHECK(fits[1].exponent == Approx(0).margin(1e-12));
}

TEST_CASE("a bench run measures every mechanism and reports stable columns", "[bench-attn][fast]") {
  BenchGrid grid = tiny_grid("dot");
  grid.mechanisms.clear();
  grid.precompute = {true, false};
  std::vector<BenchResult> results;
  for (const BenchPoint& p : expand_grid(grid)) {
    INFO(p.mechanism);
    results.push_back(run_point(p, 0, 2, 1));
    const BenchResult& r = results.back();
    CHECK(r.p10_ms <= r.median_ms);
    CHECK(r.median_ms <= r.p90_ms);
    CHECK(r.flops == point_flops(p));
    // At least the keys [5, 2, 8] and the queries and their gradients.
    CHECK(r.bytes >= int64_t(5 * 2 * 8 * sizeof(float)));
  }
  BenchMachine machine;
  machine.cpu_model = "test cpu";
  std::ostringstream tsv;
  write_bench_report(tsv, BenchFormat::kTsv, machine, results);
  std::vector<std::string> header;
  size_t rows = 0;
  std::istringstream lines(tsv.str());
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("#", 0) == 0) continue;
    const auto cells = heed::split(line, "\t");
    CHECK(cells.size() == bench_columns().size());
    if (header.empty()) {
      header = cells;
    } else {
      ++rows;
    }
  }
  CHECK(header == bench_columns());
  CHECK(rows == results.size());
  CHECK(heed::join(bench_columns(), " ") ==
        "mechanism mode pass precision threads batch source_length target_length hidden heads "
        "window precompute median_ms p10_ms p90_ms gflop gflops peak_fraction bytes");
}
