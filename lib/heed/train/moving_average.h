// Exponential smoothing of the weights, as Marian's --exponential-smoothing
// (src/training/exponential_smoothing.h): after update t (1-based) every averaged value moves
// towards its weight by d = max(decay, 1 − (t + 1)/(t + 10)). The first updates move it most of
// the way (d = 9/11 after the first), so the average does not drag the random initialisation
// along; d reaches decay at t = 9/decay − 10 (8,990 for 1e-3) and stays there.
#pragma once

#include <cstdint>
#include <vector>

#include "heed/train/optimizer.h"

namespace heed::train {

// d after update step (1-based) with the given decay.
float smoothing_weight(float decay, int64_t step);

// average[p][i] += weight · (params[p].value[i] − average[p][i]), every parameter p (threaded).
void smooth(std::vector<std::vector<float>>& average, const std::vector<ParamRef>& params,
            float weight);

}  // namespace heed::train
