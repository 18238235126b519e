#include "heed/common/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace heed {

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const double at = q * double(values.size() - 1);
  const size_t below = size_t(std::floor(at));
  const size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (at - double(below)) * (values[above] - values[below]);
}

}  // namespace heed
