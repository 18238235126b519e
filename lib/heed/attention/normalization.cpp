#include "heed/attention/normalization.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "heed/attention/softmax_rows.h"
#include "heed/common/check.h"
#include "heed/common/error.h"

namespace heed::attention {

std::string to_string(Normalizer normalizer) {
  return normalizer == Normalizer::kSoftmax ? "softmax" : "sparsemax";
}

Normalizer parse_normalizer(const std::string& name) {
  if (name == "softmax") return Normalizer::kSoftmax;
  if (name == "sparsemax") return Normalizer::kSparsemax;
  throw ConfigError("--attention-normalizer: unknown value '" + name +
                    "' (expected softmax or sparsemax)");
}

Span window_span(double centre, int64_t half_width, int64_t length) {
  HEED_CHECK(length >= 1 && half_width >= 0, "window_span: length and half width");
  const double clamped = std::min(std::max(centre, 0.0), double(length - 1));
  const int64_t middle = static_cast<int64_t>(std::floor(clamped + 0.5));
  return Span{std::max<int64_t>(0, middle - half_width),
              std::min<int64_t>(length, middle + half_width + 1)};
}

namespace {

// Euclidean projection onto the simplex: a = max(e − τ, 0) with τ chosen so that Σ a = 1
// (sort, then the largest k with 1 + k·e_(k) > Σ_{j≤k} e_(j)).
void sparsemax_span(float* row, Span span, std::vector<float>& sorted) {
  sorted.assign(row + span.begin, row + span.end);
  std::sort(sorted.begin(), sorted.end(), std::greater<float>());
  double cumulative = 0, tau_sum = 0;
  int64_t support = 0;
  for (size_t k = 0; k < sorted.size(); ++k) {
    cumulative += double(sorted[k]);
    if (1.0 + double(k + 1) * double(sorted[k]) > cumulative) {
      support = int64_t(k + 1);
      tau_sum = cumulative;
    }
  }
  const float tau = static_cast<float>((tau_sum - 1.0) / double(support));
  for (int64_t i = span.begin; i < span.end; ++i) row[i] = std::max(row[i] - tau, 0.f);
}

}  // namespace

void normalize_rows(Normalizer normalizer, float* rows, int64_t count, int64_t width,
                    const Span* spans) {
  for (int64_t r = 0; r < count; ++r) {
    HEED_CHECK(spans[r].begin >= 0 && spans[r].begin < spans[r].end && spans[r].end <= width,
               "attention: empty or out-of-range span");
  }
  if (normalizer == Normalizer::kSoftmax) {
    softmax_rows(rows, count, width, spans);
    return;
  }
  std::vector<float> sorted;
  for (int64_t r = 0; r < count; ++r) {
    float* row = rows + r * width;
    const Span span = spans[r];
    for (int64_t i = 0; i < span.begin; ++i) row[i] = 0.f;
    for (int64_t i = span.end; i < width; ++i) row[i] = 0.f;
    sparsemax_span(row, span, sorted);
  }
}

void normalize_rows_backward(Normalizer normalizer, const float* weights, float* d, int64_t count,
                             int64_t width) {
  if (normalizer == Normalizer::kSoftmax) {
    softmax_rows_backward(weights, d, count, width);
    return;
  }
  for (int64_t r = 0; r < count; ++r) {
    const float* a = weights + r * width;
    float* g = d + r * width;
    // On the support (a > 0): d e = d a − mean over the support of d a; 0 elsewhere.
    double total = 0;
    int64_t support = 0;
    for (int64_t i = 0; i < width; ++i) {
      if (a[i] > 0.f) {
        total += double(g[i]);
        ++support;
      }
    }
    const float mean = support > 0 ? static_cast<float>(total / double(support)) : 0.f;
    for (int64_t i = 0; i < width; ++i) g[i] = a[i] > 0.f ? g[i] - mean : 0.f;
  }
}

void gaussian_weighting(float* weights, float* normalized, int64_t count, int64_t width,
                        const Span* spans, const float* centres, float sigma) {
  const float inv_two_var = 1.f / (2.f * sigma * sigma);
  for (int64_t r = 0; r < count; ++r) {
    float* w = weights + r * width;
    float* a = normalized + r * width;
    std::copy(w, w + width, a);
    for (int64_t s = spans[r].begin; s < spans[r].end; ++s) {
      const float x = float(s) - centres[r];
      w[s] = a[s] * std::exp(-x * x * inv_two_var);
    }
  }
}

void gaussian_weighting_backward(float* d, const float* normalized, int64_t count, int64_t width,
                                 const Span* spans, const float* centres, float sigma,
                                 float* d_centres) {
  const float inv_var = 1.f / (sigma * sigma);
  for (int64_t r = 0; r < count; ++r) {
    float* g = d + r * width;
    const float* a = normalized + r * width;
    double d_centre = 0;
    for (int64_t s = 0; s < width; ++s) {
      if (s < spans[r].begin || s >= spans[r].end) {
        g[s] = 0.f;
        continue;
      }
      const float x = float(s) - centres[r];
      const float gauss = std::exp(-0.5f * x * x * inv_var);
      d_centre += double(g[s]) * double(a[s]) * double(gauss) * double(x * inv_var);
      g[s] *= gauss;
    }
    d_centres[r] = static_cast<float>(d_centre);
  }
}

}  // namespace heed::attention
