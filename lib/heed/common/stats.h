// Order statistics of repeated timings, one definition for heed-bench-attn and bench/.
#pragma once

#include <utility>
#include <vector>

namespace heed {

// The q-quantile (0..1) of values, interpolated linearly between order statistics; NaN when
// there are none.
double quantile(std::vector<double> values, double q);

inline double median(std::vector<double> values) {
  return quantile(std::move(values), 0.5);
}

}  // namespace heed
