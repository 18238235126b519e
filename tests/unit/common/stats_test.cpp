#include "heed/common/stats.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

using namespace heed;

TEST_CASE("quantiles interpolate between order statistics", "[common][fast]") {
  const std::vector<double> times = {5, 1, 4, 2, 3};
  CHECK(quantile(times, 0.5) == 3);
  CHECK(quantile(times, 0.0) == 1);
  CHECK(quantile(times, 1.0) == 5);
  CHECK(quantile(times, 0.1) == Approx(1.4));  // 0.1 × 4 = 0.4 of the way from 1 to 2
  CHECK(quantile({4, 2}, 0.5) == 3);
  CHECK(std::isnan(quantile({}, 0.5)));
}

TEST_CASE("the median is the 0.5-quantile", "[common][fast]") {
  CHECK(median({5, 1, 3}) == 3);
  CHECK(median({4, 1, 3, 2}) == 2.5);
}
