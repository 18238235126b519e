#include "heed/train/moving_average.h"

#include <catch2/catch.hpp>

using namespace heed;
using train::ParamRef;

TEST_CASE("moving average: the weight of each update, by hand (Marian's formula)",
          "[train][fast]") {
  // d = max(decay, 1 − (t + 1)/(t + 10)) = max(decay, 9/(t + 10)).
  CHECK(train::smoothing_weight(1e-3f, 1) == Approx(9.0 / 11));
  CHECK(train::smoothing_weight(1e-3f, 2) == Approx(9.0 / 12));
  CHECK(train::smoothing_weight(0.5f, 10) == Approx(0.5));  // 9/20 < 0.5
  // 9/(t + 10) meets 1e-3 at t = 8,990: above it before, the decay after.
  CHECK(train::smoothing_weight(1e-3f, 8000) == Approx(9.0 / 8010));
  CHECK(train::smoothing_weight(1e-3f, 20000) == Approx(1e-3));
}

TEST_CASE("moving average: three updates of two parameters, by hand", "[train][fast]") {
  // The average starts at the initial weights (0 and {1, −1}), then follows three updates whose
  // weights are given; with decay 0.5, d = 9/11, 9/12 and 9/13 (all above the decay).
  std::vector<float> w = {0}, v = {1, -1}, gw(1), gv(2);
  const std::vector<ParamRef> params = {{"w", w.data(), gw.data(), 1},
                                        {"v", v.data(), gv.data(), 2}};
  std::vector<std::vector<float>> average = {w, v};
  const std::vector<std::vector<float>> trajectory_w = {{2}, {4}, {-1}};
  const std::vector<std::vector<float>> trajectory_v = {{3, -3}, {1, 0}, {1, 0}};
  for (int t = 1; t <= 3; ++t) {
    w = trajectory_w[t - 1];
    v = trajectory_v[t - 1];
    train::smooth(average, params, train::smoothing_weight(0.5f, t));
  }
  // w: 0 → 18/11 → 18/11 + (3/4)(4 − 18/11) = 37.5/11 → 37.5/11 + (9/13)(−1 − 37.5/11).
  const double w1 = 18.0 / 11, w2 = w1 + 0.75 * (4 - w1), w3 = w2 + 9.0 / 13 * (-1 - w2);
  CHECK(average[0][0] == Approx(w3).epsilon(1e-6));
  CHECK(w2 == Approx(37.5 / 11));
  // v[0]: 1 → 1 + (9/11)(3 − 1) → … ; v[1]: −1 → −1 + (9/11)(−3 + 1) → …
  double v0 = 1, v1 = -1;
  const double d[3] = {9.0 / 11, 0.75, 9.0 / 13};
  for (int t = 0; t < 3; ++t) {
    v0 += d[t] * (double(trajectory_v[t][0]) - v0);
    v1 += d[t] * (double(trajectory_v[t][1]) - v1);
  }
  CHECK(average[1][0] == Approx(v0).epsilon(1e-6));
  CHECK(average[1][1] == Approx(v1).epsilon(1e-6));
  // The weights themselves are untouched.
  CHECK(w[0] == -1);
  CHECK(v == std::vector<float>{1, 0});
}
