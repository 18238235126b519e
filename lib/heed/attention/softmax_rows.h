// Private to lib/heed/attention: the softmax of normalize_rows and its backward, vectorised
// (compiled per ISA, chosen at run time like additive_scores.cpp) and threaded over rows with
// OpenMP. At L = 500 the scalar loops took 86 of the 605 ms of dot attention's
// forward+backward (batch 64); these are the same arithmetic in 16 lanes: sums in double as
// before, e^x by simd::exp_nonpositive instead of std::exp.
#pragma once

#include <cstdint>

#include "heed/attention/normalization.h"

namespace heed::attention {

// Row r of rows [count, width]: softmax over spans[r], 0 elsewhere. Spans must be valid.
void softmax_rows(float* rows, int64_t count, int64_t width, const Span* spans);
// d [count, width] in place: d e = a ⊙ (d a − Σ a·d a) per row, in double.
void softmax_rows_backward(const float* weights, float* d, int64_t count, int64_t width);

}  // namespace heed::attention
