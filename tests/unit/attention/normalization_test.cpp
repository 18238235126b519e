// The shared normalisation step: softmax and sparsemax against double-precision definitions,
// spans and windows, the Gaussian weighting, and finite-difference gradients of all three.
#include "heed/attention/normalization.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "heed/common/error.h"
#include "heed/onednn/context.h"
#include "support/gradcheck.h"

using heed::attention::Normalizer;
using heed::attention::Span;

namespace {

constexpr int64_t kRows = 3, kWidth = 7;
const std::vector<Span> kSpans = {{0, 7}, {2, 5}, {0, 1}};

// Loss = Σ p ⊙ normalize(scores), with optional Gaussian weighting, in double.
struct Case {
  Normalizer normalizer;
  bool gaussian;
  heed::tensor::Tensor scores, centres, projection;
  explicit Case(Normalizer n, bool g, uint64_t seed) : normalizer(n), gaussian(g) {
    heed::Rng rng = heed::make_rng(seed);
    scores = heed::test::random_tensor(heed::tensor::Shape{kRows, kWidth}, rng, -2.f, 2.f);
    centres = heed::test::random_tensor(heed::tensor::Shape{kRows}, rng, 0.f, 6.f);
    projection = heed::test::random_tensor(heed::tensor::Shape{kRows, kWidth}, rng);
  }
  std::vector<float> weights(std::vector<float>* normalized = nullptr) const {
    std::vector<float> w = scores.to_vector(), a(w.size());
    heed::attention::normalize_rows(normalizer, w.data(), kRows, kWidth, kSpans.data());
    if (gaussian) {
      heed::attention::gaussian_weighting(w.data(), a.data(), kRows, kWidth, kSpans.data(),
                                          centres.data(), 1.5f);
    } else {
      a = w;
    }
    if (normalized) *normalized = a;
    return w;
  }
  double loss() const {
    const std::vector<float> w = weights();
    double l = 0;
    for (size_t i = 0; i < w.size(); ++i) l += double(w[i]) * double(projection.data()[i]);
    return l;
  }
};

}  // namespace

TEST_CASE("normalization: softmax and sparsemax over spans, 0 outside", "[attention][fast]") {
  std::vector<float> rows = {1, 2, 3, 9, 0.5f, 0.2f, 9, 9, 4};  // 3 rows of 3
  const std::vector<Span> spans = {{0, 3}, {1, 3}, {2, 3}};
  std::vector<float> soft = rows;
  heed::attention::normalize_rows(Normalizer::kSoftmax, soft.data(), 3, 3, spans.data());
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  CHECK(soft[0] == Approx(std::exp(1.0) / z));
  CHECK(soft[2] == Approx(std::exp(3.0) / z));
  CHECK(soft[3] == 0.f);
  CHECK(soft[4] + soft[5] == Approx(1.0));
  CHECK(soft[6] == 0.f);
  CHECK(soft[7] == 0.f);
  CHECK(soft[8] == 1.f);

  // sparsemax([1, 2, 3]) = [0, 0, 1]: the gap 1 ≥ 1 leaves one element in the support;
  // sparsemax([0.5, 0.2]) = [0.65, 0.35] (τ = −0.15).
  std::vector<float> sparse = rows;
  heed::attention::normalize_rows(Normalizer::kSparsemax, sparse.data(), 3, 3, spans.data());
  CHECK(sparse[0] == 0.f);
  CHECK(sparse[1] == 0.f);
  CHECK(sparse[2] == Approx(1.0));
  CHECK(sparse[4] == Approx(0.65));
  CHECK(sparse[5] == Approx(0.35));
  CHECK(sparse[8] == 1.f);
  std::vector<float> wide = {3.f, 1.f, 2.f, 2.5f};
  const Span all{0, 4};
  heed::attention::normalize_rows(Normalizer::kSparsemax, wide.data(), 1, 4, &all);
  // Support {3, 2.5} (1 + 3·2 = 7 does not exceed 3 + 2.5 + 2), τ = (5.5 − 1) / 2 = 2.25.
  CHECK(wide[0] == Approx(0.75));
  CHECK(wide[1] == 0.f);
  CHECK(wide[2] == 0.f);
  CHECK(wide[3] == Approx(0.25));
  std::vector<float> flat = {0.3f, 0.1f, 0.2f, 0.25f};
  heed::attention::normalize_rows(Normalizer::kSparsemax, flat.data(), 1, 4, &all);
  // Close scores keep everyone: τ = (0.85 − 1) / 4.
  CHECK(flat[1] == Approx(0.1375));
}

TEST_CASE("normalization: windows are clamped into the sentence and never empty",
          "[attention][fast]") {
  auto check = [](double centre, int64_t d, int64_t len, int64_t begin, int64_t end) {
    const Span s = heed::attention::window_span(centre, d, len);
    INFO(centre << " " << d << " " << len);
    CHECK(s.begin == begin);
    CHECK(s.end == end);
  };
  check(5, 2, 20, 3, 8);
  check(0, 2, 20, 0, 3);
  check(19.4, 2, 20, 17, 20);
  check(30, 2, 20, 17, 20);  // local-m past the source: the last positions
  check(-4, 1, 5, 0, 2);
  check(2.5, 0, 5, 3, 4);  // rounds half up
  check(3, 10, 4, 0, 4);
  CHECK(heed::attention::parse_normalizer("sparsemax") == Normalizer::kSparsemax);
  CHECK_THROWS_AS(heed::attention::parse_normalizer("max"), heed::ConfigError);
}

TEST_CASE("normalization: finite-difference gradients of softmax, sparsemax, Gaussian weighting",
          "[attention][fast]") {
  for (const Normalizer normalizer : {Normalizer::kSoftmax, Normalizer::kSparsemax}) {
    for (const bool gaussian : {false, true}) {
      Case c(normalizer, gaussian, 3);
      std::vector<float> normalized;
      const std::vector<float> w = c.weights(&normalized);
      std::vector<float> d(c.projection.data(), c.projection.data() + kRows * kWidth);
      std::vector<float> d_centres(kRows, 0.f);
      if (gaussian) {
        heed::attention::gaussian_weighting_backward(d.data(), normalized.data(), kRows, kWidth,
                                                     kSpans.data(), c.centres.data(), 1.5f,
                                                     d_centres.data());
      }
      heed::attention::normalize_rows_backward(normalizer, normalized.data(), d.data(), kRows,
                                               kWidth);
      heed::tensor::Tensor d_scores(heed::tensor::Shape{kRows, kWidth});
      std::copy(d.begin(), d.end(), d_scores.data());
      heed::tensor::Tensor d_c(heed::tensor::Shape{kRows});
      std::copy(d_centres.begin(), d_centres.end(), d_c.data());
      std::vector<heed::test::GradParam> params = {
          heed::test::grad_param("scores", c.scores, d_scores)};
      if (gaussian) params.push_back(heed::test::grad_param("centres", c.centres, d_c));
      heed::test::GradCheckOptions options;
      options.eps = 1e-3;
      options.max_coords = 100;
      const auto result = heed::test::gradcheck([&] { return c.loss(); }, params, options);
      INFO(heed::attention::to_string(normalizer) << (gaussian ? " + gaussian" : "") << "\n"
                                                  << result.report);
      CHECK(result.ok);
      CHECK(result.checked > 10);
      // Outside the spans: weight 0 and gradient 0.
      for (int64_t r = 0; r < kRows; ++r) {
        for (int64_t i = 0; i < kWidth; ++i) {
          if (i < kSpans[size_t(r)].begin || i >= kSpans[size_t(r)].end) {
            CHECK(w[size_t(r * kWidth + i)] == 0.f);
            CHECK(d[size_t(r * kWidth + i)] == 0.f);
          }
        }
      }
    }
  }
}

// The vectorised softmax (softmax_rows.cpp) against the double-precision definition, on rows
// whose spans are not multiples of its 16 lanes, with scores spread wide enough that some
// weights underflow to 0, and with any thread count; its backward against the same formula in
// double.
TEST_CASE("normalization: vectorised softmax and backward match double precision",
          "[attention][fast]") {
  constexpr int64_t kCount = 40, kWide = 53;
  heed::Rng rng = heed::make_rng(11);
  const heed::tensor::Tensor scores =
      heed::test::random_tensor(heed::tensor::Shape{kCount, kWide}, rng, -60.f, 60.f);
  const heed::tensor::Tensor upstream =
      heed::test::random_tensor(heed::tensor::Shape{kCount, kWide}, rng);
  std::vector<Span> spans(kCount);
  for (int64_t r = 0; r < kCount; ++r) {
    spans[size_t(r)] = Span{r % 5, kWide - (r * 7) % 40};  // widths 1 … 53
  }
  const int before = heed::onednn::threads();
  for (const int threads : {1, 2}) {
    heed::onednn::set_threads(threads);
    std::vector<float> w = scores.to_vector();
    heed::attention::normalize_rows(Normalizer::kSoftmax, w.data(), kCount, kWide, spans.data());
    std::vector<float> g = upstream.to_vector();
    heed::attention::normalize_rows_backward(Normalizer::kSoftmax, w.data(), g.data(), kCount,
                                             kWide);
    for (int64_t r = 0; r < kCount; ++r) {
      const Span span = spans[size_t(r)];
      const float* x = scores.data() + r * kWide;
      double mx = x[span.begin], z = 0, dot = 0;
      for (int64_t i = span.begin; i < span.end; ++i) mx = std::max(mx, double(x[i]));
      for (int64_t i = span.begin; i < span.end; ++i) z += std::exp(double(x[i]) - mx);
      for (int64_t i = 0; i < kWide; ++i) {
        const double want = i < span.begin || i >= span.end ? 0.0 : std::exp(double(x[i]) - mx) / z;
        const float got = w[size_t(r * kWide + i)];
        REQUIRE(std::abs(double(got) - want) <= 1e-6 * want + 1e-30);
        if (want == 0.0) REQUIRE(got == 0.f);
        dot += double(got) * double(upstream.data()[r * kWide + i]);
      }
      for (int64_t i = 0; i < kWide; ++i) {
        const double a = w[size_t(r * kWide + i)];
        const double want = a * (double(upstream.data()[r * kWide + i]) - dot);
        REQUIRE(g[size_t(r * kWide + i)] == Approx(want).margin(1e-7));
      }
    }
  }
  heed::onednn::set_threads(before);
  // A NaN score still reaches the weights (training's NaN checks must see it).
  std::vector<float> nan_row = {0.f, std::nanf(""), 1.f};
  const Span whole{0, 3};
  heed::attention::normalize_rows(Normalizer::kSoftmax, nan_row.data(), 1, 3, &whole);
  CHECK((std::isnan(nan_row[0]) || std::isnan(nan_row[1]) || std::isnan(nan_row[2])));
}
