// heed-bench-attn --stats (lib/saturation.h): the row statistics on weight
// vectors worked by hand, scaled-dot equal to dot at d = 1, the saturation of unscaled dot
// products as d grows (fixed seed), draws that do not depend on the other widths, the columns.
#include "bench-attn/saturation.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "heed/common/error.h"
#include "heed/common/strings.h"

using namespace heed::bench_attn;

namespace {

StatsConfig small_config(std::vector<int64_t> dims) {
  StatsConfig config;
  config.dims = std::move(dims);
  config.inputs = {StatsInput::kNormal};
  config.source_length = 20;
  config.samples = 60;
  config.seed = 7;
  return config;
}

void check_equal(const StatsRow& a, const StatsRow& b) {
  CHECK(a.dim == b.dim);
  CHECK(a.entropy == Approx(b.entropy).epsilon(1e-5));
  CHECK(a.max_weight == Approx(b.max_weight).epsilon(1e-5));
  CHECK(a.grad_scores_norm == Approx(b.grad_scores_norm).epsilon(1e-5));
  CHECK(a.grad_scores_median == Approx(b.grad_scores_median).epsilon(1e-5));
  CHECK(a.grad_query_norm == Approx(b.grad_query_norm).epsilon(1e-5));
}

}  // namespace

TEST_CASE("stats of one row of weights, worked by hand", "[bench-attn][fast]") {
  // w = (1/2, 1/4, 1/4): H = ½ ln 2 + 2 · ¼ ln 4 = 1.5 ln 2. With g = (1, 0, 0), ⟨w, g⟩ = ½ and
  // dL/ds = w ⊙ (g − ½) = (¼, −⅛, −⅛), of norm √(1/16 + 2/64) = √0.09375.
  const float halves[] = {0.5f, 0.25f, 0.25f}, first[] = {1, 0, 0};
  WeightRowStats stats = weight_row_stats(halves, first, 3);
  CHECK(stats.entropy == Approx(1.5 * std::log(2.0)));
  CHECK(stats.max_weight == Approx(0.5));
  CHECK(stats.grad_scores_norm == Approx(std::sqrt(0.09375)));

  // Uniform over 4: H = ln 4, the largest ¼; g = (1, 0, 0, 0) gives ¼ (g − ¼) =
  // (3/16, −1/16, −1/16, −1/16), of norm √(12/256).
  const float uniform[] = {0.25f, 0.25f, 0.25f, 0.25f}, first4[] = {1, 0, 0, 0};
  stats = weight_row_stats(uniform, first4, 4);
  CHECK(stats.entropy == Approx(std::log(4.0)));
  CHECK(stats.max_weight == Approx(0.25));
  CHECK(stats.grad_scores_norm == Approx(std::sqrt(12.0 / 256)));

  // One-hot: no entropy, and no gradient reaches the scores whatever comes from above.
  const float one_hot[] = {0, 1, 0}, any[] = {0.6f, -0.48f, 0.64f};
  stats = weight_row_stats(one_hot, any, 3);
  CHECK(stats.entropy == 0);
  CHECK(stats.max_weight == 1);
  CHECK(stats.grad_scores_norm == Approx(0).margin(1e-12));
}

TEST_CASE("stats: scaled-dot is dot at d = 1", "[bench-attn][fast]") {
  const std::vector<StatsRow> rows = saturation_stats(small_config({1}));
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].mechanism == "dot");
  CHECK(rows[1].mechanism == "scaled-dot");
  check_equal(rows[0], rows[1]);
  CHECK(rows[0].source_length == 20);
  CHECK(rows[0].samples == 60);
  CHECK(rows[0].entropy_fraction == Approx(rows[0].entropy / std::log(20.0)));
}

TEST_CASE("stats: unscaled dot products saturate as d grows, scaled ones stay put",
          "[bench-attn][fast]") {
  // Fixed seed, so the numbers are fixed; the margins are wide (at S = 20, scores of
  // variance d = 1024 make nearly every row one-hot, variance 1 leaves the weights spread).
  const std::vector<StatsRow> rows = saturation_stats(small_config({4, 1024}));
  REQUIRE(rows.size() == 4);
  const StatsRow &dot4 = rows[0], &scaled4 = rows[1], &dot1024 = rows[2], &scaled1024 = rows[3];
  CHECK(dot1024.dim == 1024);
  CHECK(dot1024.entropy_fraction < 0.2);
  CHECK(dot1024.entropy_fraction < dot4.entropy_fraction);
  CHECK(dot1024.max_weight > 0.8);
  CHECK(dot1024.grad_scores_median < 0.1 * scaled1024.grad_scores_median);
  CHECK(scaled1024.entropy_fraction > 0.7);
  CHECK(scaled1024.entropy_fraction == Approx(scaled4.entropy_fraction).margin(0.1));
  CHECK(scaled1024.max_weight < 0.4);
}

TEST_CASE("stats: the draws of a width do not depend on the other widths", "[bench-attn][fast]") {
  const std::vector<StatsRow> alone = saturation_stats(small_config({8}));
  const std::vector<StatsRow> with_others = saturation_stats(small_config({2, 8}));
  REQUIRE(alone.size() == 2);
  REQUIRE(with_others.size() == 4);
  check_equal(alone[0], with_others[2]);
  check_equal(alone[1], with_others[3]);
}

TEST_CASE("stats report columns and refusals", "[bench-attn][fast]") {
  StatsConfig config = small_config({2, 4});
  config.inputs = {StatsInput::kNormal, StatsInput::kTanh};
  const std::vector<StatsRow> rows = saturation_stats(config);
  REQUIRE(rows.size() == 8);
  CHECK(rows[4].input == StatsInput::kTanh);
  std::ostringstream tsv;
  write_stats_report(tsv, BenchFormat::kTsv, rows);
  const std::vector<std::string> lines = heed::split(tsv.str(), "\n");
  REQUIRE(lines.size() == 10);  // header, 8 rows, the empty rest after the last newline
  CHECK(lines[0] == heed::join(stats_columns(), "\t"));
  CHECK(heed::starts_with(lines[5], "tanh\tdot\t2\t20\t60\t"));
  CHECK(heed::split(lines[5], "\t").size() == stats_columns().size());

  CHECK(parse_stats_input("tanh") == StatsInput::kTanh);
  CHECK_THROWS_AS(parse_stats_input("uniform"), heed::ConfigError);
  config.dims = {0};
  CHECK_THROWS_AS(saturation_stats(config), heed::ConfigError);
}
