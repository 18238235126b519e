// Everything between raw scores and weights, in one place for every mechanism, forward and
// backward (docs/attention.md "Normalisation, windows, positional weighting"):
//  - the span a row may attend: the sentence's own positions, narrowed to a window
//    [p − D, p + D] around a centre p for local attention;
//  - the normaliser over that span (softmax, or sparsemax: Martins & Astudillo 2016), exactly 0
//    outside it;
//  - an optional Gaussian positional weighting applied after the normaliser (Luong's local-p:
//    a_s · exp(−(s − p)² / 2σ²), not renormalised), whose backward also yields d p.
// Rows are independent: a row is one (sentence, query step) or one (sentence, head, step).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace heed::attention {

enum class Normalizer { kSoftmax, kSparsemax };

std::string to_string(Normalizer normalizer);
// ConfigError listing the valid names.
Normalizer parse_normalizer(const std::string& name);

// Positions [begin, end) of a row that may get weight.
struct Span {
  int64_t begin = 0;
  int64_t end = 0;
};

// The window [round(p) − d, round(p) + d] ∩ [0, length), never empty: a centre beyond the
// sentence is clamped to its first or last position (local-m at steps past the source length).
Span window_span(double centre, int64_t half_width, int64_t length);

// rows [count, width] in place: row r's scores over spans[r] become weights summing to 1 there;
// every other entry becomes exactly 0.
void normalize_rows(Normalizer normalizer, float* rows, int64_t count, int64_t width,
                    const Span* spans);
// d [count, width] in place: dL/dweights → dL/dscores, from the weights the forward wrote.
// Entries outside the spans (weight 0, and for sparsemax outside the support) get 0.
void normalize_rows_backward(Normalizer normalizer, const float* weights, float* d, int64_t count,
                             int64_t width);

// The Gaussian weighting g_s = exp(−(s − p_r)² / 2σ²) over each row's span, multiplied into
// weights in place (the normalised weights are kept in normalized for the backward).
void gaussian_weighting(float* weights, float* normalized, int64_t count, int64_t width,
                        const Span* spans, const float* centres, float sigma);
// d_weighted [count, width] in place → dL/d(normalised weights); d_centres[r] (overwritten) gets
// Σ_s d_weighted_s · a_s · g_s · (s − p_r) / σ².
void gaussian_weighting_backward(float* d, const float* normalized, int64_t count, int64_t width,
                                 const Span* spans, const float* centres, float sigma,
                                 float* d_centres);

}  // namespace heed::attention
