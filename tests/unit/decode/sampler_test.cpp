#include "heed/decode/sampler.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "heed/common/error.h"

using namespace heed;
using decode::Sampler;
using decode::SamplingMethod;
using decode::SamplingOptions;

namespace {

SamplingOptions sampling(const std::string& spec, float temperature = 1.0f) {
  SamplingOptions options = decode::parse_sampling(spec);
  options.temperature = temperature;
  return options;
}

// Log-probabilities of the given probabilities, in that column order.
std::vector<float> log_of(const std::vector<double>& p) {
  std::vector<float> log_probs;
  for (double x : p) log_probs.push_back(static_cast<float>(std::log(x)));
  return log_probs;
}

// How often each column is drawn in n draws from a fixed seed.
std::map<int, int> counts(Sampler& sampler, const std::vector<float>& log_probs, int n,
                          int excluded = -1) {
  Rng rng = make_rng(7);
  std::map<int, int> drawn;
  for (int i = 0; i < n; ++i) {
    ++drawn[sampler.draw(log_probs.data(), static_cast<int>(log_probs.size()), excluded, rng)];
  }
  return drawn;
}

std::set<int> support(const std::map<int, int>& drawn) {
  std::set<int> columns;
  for (const auto& [column, n] : drawn) columns.insert(column);
  return columns;
}

// 40 tokens with probabilities ∝ 0.9^rank, the ranks shuffled over the columns (a fixed
// permutation), so that "most probable" is not "first".
std::vector<double> shuffled_geometric(std::vector<int>& column_of_rank) {
  constexpr int kTokens = 40;
  std::vector<double> p(kTokens);
  column_of_rank.assign(kTokens, 0);
  double sum = 0.0;
  for (int rank = 0; rank < kTokens; ++rank) sum += std::pow(0.9, rank);
  for (int rank = 0; rank < kTokens; ++rank) {
    const int column = (rank * 17 + 5) % kTokens;  // 17 is prime to 40: a permutation
    column_of_rank[static_cast<size_t>(rank)] = column;
    p[static_cast<size_t>(column)] = std::pow(0.9, rank) / sum;
  }
  return p;
}

}  // namespace

TEST_CASE("sampler: --sampling values are parsed strictly", "[decode][sampling][fast]") {
  CHECK(decode::parse_sampling("none").method == SamplingMethod::kNone);
  CHECK(decode::parse_sampling("full").method == SamplingMethod::kFull);
  const SamplingOptions topk = decode::parse_sampling("topk:12");
  CHECK(topk.method == SamplingMethod::kTopK);
  CHECK(topk.top_k == 12);
  const SamplingOptions nucleus = decode::parse_sampling("nucleus:0.9");
  CHECK(nucleus.method == SamplingMethod::kNucleus);
  CHECK(nucleus.top_p == 0.9f);
  CHECK(decode::parse_sampling("nucleus:1").top_p == 1.0f);
  for (const char* bad : {"",
                          "topk",
                          "topk:",
                          "topk:0",
                          "topk:-3",
                          "topk:+3",
                          "topk:2.5",
                          "topk:3x",
                          "topk:99999999999",
                          "nucleus",
                          "nucleus:",
                          "nucleus:0",
                          "nucleus:-0.5",
                          "nucleus:1.01",
                          "nucleus:nan",
                          "nucleus:inf",
                          "nucleus:1e-60",
                          "nucleus:0.5x",
                          "full:3",
                          "none:1",
                          "beam",
                          "Topk:3"}) {
    INFO(bad);
    CHECK_THROWS_AS(decode::parse_sampling(bad), ConfigError);
  }
  CHECK_THROWS_WITH(decode::parse_sampling("topk:0"),
                    "--sampling topk:K: K must be an integer in [1, 2147483647], not '0'");
  CHECK_THROWS_WITH(decode::parse_sampling("nucleus:2"),
                    "--sampling nucleus:P: P must be a number in (0, 1], not '2'");
  CHECK_THROWS_WITH(
      decode::parse_sampling("greedy"),
      "--sampling: unknown value 'greedy' (expected none, full, topk:K or nucleus:P)");
  // The temperature is a finite number > 0 (a float: 1e-50 would be 0).
  for (const float bad : {0.0f, -1.0f, std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN()}) {
    CHECK_THROWS_AS(Sampler(sampling("full", bad)), ConfigError);
  }
  SamplingOptions k0 = sampling("topk:1");
  k0.top_k = 0;
  CHECK_THROWS_AS(Sampler(k0), ConfigError);
  CHECK_THROWS_AS(Sampler(sampling("none")), InternalError);
}

TEST_CASE("sampler: the same generator state draws the same tokens", "[decode][sampling][fast]") {
  std::vector<int> ranks;
  const std::vector<float> log_probs = log_of(shuffled_geometric(ranks));
  for (const char* spec : {"full", "topk:10", "nucleus:0.8"}) {
    Sampler a(sampling(spec)), b(sampling(spec));
    Rng ra = make_rng(3, 9), rb = make_rng(3, 9), other = make_rng(4, 9);
    std::vector<int> from_a, from_b, from_other;
    for (int i = 0; i < 200; ++i) {
      from_a.push_back(a.draw(log_probs.data(), 40, -1, ra));
      from_b.push_back(b.draw(log_probs.data(), 40, -1, rb));
      from_other.push_back(b.draw(log_probs.data(), 40, -1, other));
    }
    INFO(spec);
    CHECK(from_a == from_b);
    CHECK(from_a != from_other);
  }
}

TEST_CASE("sampler: top-k draws the K most probable tokens only", "[decode][sampling][fast]") {
  std::vector<int> column_of_rank;
  const std::vector<float> log_probs = log_of(shuffled_geometric(column_of_rank));
  for (const int k : {1, 2, 5, 17, 40, 1000}) {
    Sampler sampler(sampling("topk:" + std::to_string(k)));
    const std::map<int, int> drawn = counts(sampler, log_probs, 20000);
    // Every one of the K (all 40 when K is larger) is drawn, and nothing else.
    const std::set<int> top(column_of_rank.begin(), column_of_rank.begin() + std::min<long>(k, 40));
    INFO("K = " << k);
    CHECK(support(drawn) == top);
  }
  // topk:1 is the most probable token even where a high temperature rounds every weight to 1.
  Sampler hot(sampling("topk:1", 1e30f));
  CHECK(support(counts(hot, log_probs, 100)) == std::set<int>{column_of_rank[0]});
}

TEST_CASE("sampler: nucleus draws the fewest most probable tokens holding P",
          "[decode][sampling][fast]") {
  // Probabilities 0.4, 0.25, 0.15, 0.1, 0.05, 0.05 on columns 3, 0, 5, 1, 4, 2; cumulative
  // 0.4, 0.65, 0.8, 0.9, 0.95, 1.
  const std::vector<float> log_probs = log_of({0.25, 0.1, 0.05, 0.4, 0.05, 0.15});
  const std::vector<std::pair<float, std::set<int>>> cases = {{0.1f, {3}},
                                                              {0.39f, {3}},
                                                              {0.41f, {3, 0}},
                                                              {0.6f, {3, 0}},
                                                              {0.7f, {3, 0, 5}},
                                                              {0.85f, {3, 0, 5, 1}},
                                                              {0.99f, {0, 1, 2, 3, 4, 5}},
                                                              {1.0f, {0, 1, 2, 3, 4, 5}}};
  for (const auto& [p, expected] : cases) {
    SamplingOptions options = sampling("nucleus:0.5");
    options.top_p = p;
    Sampler sampler(options);
    INFO("P = " << p);
    CHECK(support(counts(sampler, log_probs, 20000)) == expected);
  }
  // The nucleus is taken after the temperature: at 0.5, probabilities ∝ p² (0.615, 0.240,
  // 0.087, …), so 0.75 is reached by two tokens instead of three.
  Sampler sharp(sampling("nucleus:0.75", 0.5f)), plain(sampling("nucleus:0.75"));
  CHECK(support(counts(plain, log_probs, 20000)) == std::set<int>{3, 0, 5});
  CHECK(support(counts(sharp, log_probs, 20000)) == std::set<int>{3, 0});
}

TEST_CASE("sampler: frequencies follow the tempered distribution", "[decode][sampling][fast]") {
  const std::vector<double> p = {0.2, 0.5, 0.3};
  const std::vector<float> log_probs = log_of(p);
  constexpr int kDraws = 40000;
  for (const float temperature : {1.0f, 2.0f, 0.5f}) {
    Sampler sampler(sampling("full", temperature));
    const std::map<int, int> drawn = counts(sampler, log_probs, kDraws);
    double z = 0.0;
    for (double x : p) z += std::pow(x, 1.0 / double(temperature));
    for (int c = 0; c < 3; ++c) {
      const double expected = std::pow(p[size_t(c)], 1.0 / double(temperature)) / z;
      const double got = double(drawn.count(c) ? drawn.at(c) : 0) / kDraws;
      // 5 standard deviations of a binomial frequency: about 0.012 here.
      INFO("temperature " << temperature << ", column " << c);
      CHECK(std::abs(got - expected) < 5.0 * std::sqrt(expected * (1 - expected) / kDraws));
    }
  }
  // Higher temperature flattens: the least probable token is drawn more often.
  Sampler cold(sampling("full", 0.5f)), hot(sampling("full", 2.0f));
  CHECK(counts(hot, log_probs, kDraws)[0] > counts(cold, log_probs, kDraws)[0]);
}

TEST_CASE("sampler: a temperature near 0 draws the most probable token",
          "[decode][sampling][fast]") {
  // 0.34 and 0.33: close, but at 1e-3 the second weighs (0.33/0.34)^1000 ≈ 1e-13.
  const std::vector<float> log_probs = log_of({0.33, 0.34, 0.33});
  for (const char* spec : {"full", "topk:3", "nucleus:1"}) {
    Sampler sampler(sampling(spec, 1e-3f));
    INFO(spec);
    CHECK(support(counts(sampler, log_probs, 5000)) == std::set<int>{1});
  }
  // The smallest float temperature underflows every other weight to 0, without a NaN.
  Sampler coldest(sampling("full", std::numeric_limits<float>::denorm_min()));
  CHECK(support(counts(coldest, log_probs, 100)) == std::set<int>{1});
}

TEST_CASE("sampler: the excluded token, -inf and NaN are never drawn", "[decode][sampling][fast]") {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> log_probs = log_of({0.5, 0.3, 0.1, 0.1});
  Sampler full(sampling("full"));
  // Excluding the most probable token renormalises over the others (0.6, 0.2, 0.2).
  const std::map<int, int> drawn = counts(full, log_probs, 20000, /*excluded=*/0);
  CHECK(support(drawn) == std::set<int>{1, 2, 3});
  CHECK(double(drawn.at(1)) / 20000 == Approx(0.6).margin(0.02));
  Sampler top1(sampling("topk:1"));
  CHECK(support(counts(top1, log_probs, 100, 0)) == std::set<int>{1});
  log_probs[1] = -inf;
  log_probs[2] = std::numeric_limits<float>::quiet_NaN();
  CHECK(support(counts(full, log_probs, 5000)) == std::set<int>{0, 3});
  // Nothing left to draw is a bug of the scorer, not a silent choice.
  const std::vector<float> nothing = {-inf, std::numeric_limits<float>::quiet_NaN(), 0.0f};
  Rng rng = make_rng(1);
  CHECK_THROWS_AS(full.draw(nothing.data(), 3, 2, rng), InternalError);
}
