// Embedding, dropout, parameter store and the output layer: values against plain loops and
// gradients against finite differences.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "heed/common/error.h"
#include "heed/common/rng.h"
#include "heed/layers/dropout.h"
#include "heed/layers/embedding.h"
#include "heed/layers/output.h"
#include "heed/layers/parameters.h"
#include "heed/onednn/context.h"
#include "heed/tensor/tensor_ops.h"
#include "support/gradcheck.h"

using heed::layers::LossSums;
using heed::layers::OutputLayer;
using heed::layers::Parameter;
using heed::layers::ParameterStore;
using heed::tensor::Shape;
using heed::tensor::Tensor;

TEST_CASE("parameters: names are unique and kept in creation order", "[layers][fast]") {
  ParameterStore store;
  store.add("b/x", Shape{2, 3});
  store.add("a/y", Shape{4});
  CHECK(store.all()[0]->name == "b/x");
  CHECK(store.numel() == 10);
  CHECK_THROWS_AS(store.add("a/y", Shape{1}), heed::InternalError);
  CHECK(store.find("nope") == nullptr);
  CHECK_THROWS_AS(store.get("nope"), heed::InternalError);
}

TEST_CASE("embedding: batch-major ids to time-major rows, gradient to the used rows only",
          "[layers][fast]") {
  heed::Rng rng = heed::make_rng(3);
  Tensor w = heed::test::random_tensor(Shape{6, 4}, rng);
  const std::vector<int32_t> ids = {5, 1, 2, 0, 3, 0};  // N = 2, T = 3; second has length 1
  Tensor out;
  heed::layers::embedding_forward(w, ids.data(), 2, 3, out);
  REQUIRE(out.shape() == Shape{3, 2, 4});
  for (int64_t t = 0; t < 3; ++t) {
    for (int64_t n = 0; n < 2; ++n) {
      for (int64_t k = 0; k < 4; ++k) {
        CHECK(out.data()[(t * 2 + n) * 4 + k] == w.data()[ids[size_t(n * 3 + t)] * 4 + k]);
      }
    }
  }
  Tensor d(out.shape());
  d.fill(1.f);
  Tensor g(Shape{6, 4});
  const std::vector<int64_t> lengths = {3, 1};
  heed::layers::embedding_backward(d, ids.data(), lengths.data(), 2, 3, g);
  const std::vector<float> expect_rows = {1, 1, 1, 0, 0, 1};  // ids 5, 1, 2 and 0
  for (int64_t v = 0; v < 6; ++v) CHECK(g.data()[v * 4] == expect_rows[size_t(v)]);
  const std::vector<int32_t> bad = {7};
  CHECK_THROWS_AS(heed::layers::embedding_forward(w, bad.data(), 1, 1, out), heed::InternalError);
}

TEST_CASE("dropout: inverted scaling, reproducible from the seed, identity in inference",
          "[layers][fast]") {
  heed::layers::Dropout drop(0.25f);
  Tensor x(Shape{10000});
  x.fill(1.f);
  heed::Rng rng = heed::make_rng(5);
  drop.forward(x, &rng);
  double sum = 0;
  int zeros = 0;
  for (float v : x.to_vector()) {
    sum += double(v);
    zeros += v == 0.f;
    CHECK((v == 0.f || std::fabs(v - 1.f / 0.75f) < 1e-6f));
  }
  CHECK(std::fabs(sum / 10000 - 1.0) < 0.05);
  CHECK(std::abs(zeros - 2500) < 200);
  Tensor dx(Shape{10000});
  dx.fill(1.f);
  drop.backward(dx);
  CHECK(heed::tensor::max_abs_diff(dx, x) == 0.0);

  heed::Rng again = heed::make_rng(5);
  Tensor y(Shape{10000});
  y.fill(1.f);
  drop.forward(y, &again);
  CHECK(heed::tensor::max_abs_diff(x, y) == 0.0);

  Tensor z(Shape{4});
  z.fill(2.f);
  drop.forward(z, nullptr);
  CHECK(z.to_vector() == std::vector<float>(4, 2.f));
  CHECK_THROWS_AS(heed::layers::Dropout(1.f), heed::ConfigError);
}

TEST_CASE("dropout with a unit: whole rows kept or dropped together, scaled as one",
          "[layers][fast]") {
  const int64_t rows = 4000, width = 8;
  heed::layers::Dropout words(0.25f, width);
  Tensor x(Shape{rows, width});
  x.fill(1.f);
  heed::Rng rng = heed::make_rng(5);
  words.forward(x, &rng);
  const std::vector<float> v = x.to_vector();
  int64_t dropped = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float first = v[size_t(r * width)];
    CHECK((first == 0.f || std::fabs(first - 1.f / 0.75f) < 1e-6f));
    for (int64_t j = 1; j < width; ++j) CHECK(v[size_t(r * width + j)] == first);
    dropped += first == 0.f;
  }
  CHECK(std::abs(dropped - rows / 4) < 120);
  Tensor dx(Shape{rows, width});
  dx.fill(1.f);
  words.backward(dx);
  CHECK(heed::tensor::max_abs_diff(dx, x) == 0.0);
  // A row's draw is the draw unit 1 makes for its first value: the same stream, one per row.
  heed::layers::Dropout values(0.25f);
  Tensor y(Shape{rows});
  y.fill(1.f);
  heed::Rng again = heed::make_rng(5);
  values.forward(y, &again);
  for (int64_t r = 0; r < rows; ++r) CHECK(y.to_vector()[size_t(r)] == v[size_t(r * width)]);
  Tensor odd(Shape{7});
  CHECK_THROWS_AS(words.forward(odd, &rng), heed::InternalError);
  CHECK_THROWS_AS(heed::layers::Dropout(0.1f, 0), heed::ConfigError);
}

namespace {

// Σ over counted rows of the label-smoothed cross-entropy, in double.
LossSums reference_loss(const Tensor& x, const Tensor& w, const Tensor& b,
                        const std::vector<int32_t>& targets, double eps) {
  const int64_t h = w.dim(1), v = w.dim(0), m = x.numel() / h;
  LossSums sums;
  for (int64_t r = 0; r < m; ++r) {
    if (targets[size_t(r)] < 0) continue;
    std::vector<double> logits(static_cast<size_t>(v));
    double mx = -1e300;
    for (int64_t o = 0; o < v; ++o) {
      double s = double(b.data()[o]);
      for (int64_t k = 0; k < h; ++k)
        s += double(x.data()[r * h + k]) * double(w.data()[o * h + k]);
      logits[size_t(o)] = s;
      mx = std::max(mx, s);
    }
    double z = 0;
    for (double l : logits) z += std::exp(l - mx);
    const double lse = mx + std::log(z);
    double sum_lp = 0;
    for (double l : logits) sum_lp += l - lse;
    const double nll = lse - logits[size_t(targets[size_t(r)])];
    sums.nll += nll;
    sums.loss += (1 - eps) * nll - eps / double(v) * sum_lp;
    ++sums.tokens;
  }
  return sums;
}

}  // namespace

TEST_CASE("output layer: chunked loss matches a loop, gradients match finite differences",
          "[layers][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(11);
  const int64_t h = 6, v = 13, m = 11;
  ParameterStore store;
  Parameter& w = store.add("w", Shape{v, h});
  Parameter& b = store.add("b", Shape{v});
  heed::test::fill_uniform(w.value, rng);
  heed::test::fill_uniform(b.value, rng);
  Tensor x = heed::test::random_tensor(Shape{m, h}, rng);
  std::vector<int32_t> targets(static_cast<size_t>(m));
  for (int64_t r = 0; r < m; ++r) targets[size_t(r)] = int32_t(rng() % v);
  targets[3] = -1;
  targets[8] = -1;

  for (const float eps : {0.f, 0.1f}) {
    OutputLayer out(h, v, heed::onednn::Precision::kF32, /*chunk_rows=*/4);  // 3 chunks
    out.set_weights(w, b);
    const LossSums ref = reference_loss(x, w.value, b.value, targets, eps);
    store.zero_grad();
    Tensor dx;
    const float scale = 0.5f;
    const LossSums got = out.loss(x, targets.data(), eps, scale, &dx);
    CHECK(got.tokens == 9);
    CHECK(std::fabs(got.loss - ref.loss) < 1e-5 * ref.loss);
    CHECK(std::fabs(got.nll - ref.nll) < 1e-5 * ref.nll);
    for (int64_t k = 0; k < h; ++k) {  // ignored rows
      CHECK(dx.data()[3 * h + k] == 0.f);
      CHECK(dx.data()[8 * h + k] == 0.f);
    }

    auto loss = [&] {
      return double(scale) * reference_loss(x, w.value, b.value, targets, eps).loss;
    };
    heed::test::GradCheckOptions options;
    options.eps = 1e-3;
    const auto result = heed::test::gradcheck(
        loss,
        {heed::test::grad_param("x", x, dx), heed::test::grad_param("w", w.value, w.grad),
         heed::test::grad_param("b", b.value, b.grad)},
        options);
    INFO(result.report);
    CHECK(result.ok);
  }
}

TEST_CASE("output layer: log_probs rows are normalised log-softmax", "[layers][fast]") {
  heed::Rng rng = heed::make_rng(12);
  ParameterStore store;
  Parameter& w = store.add("w", Shape{9, 5});
  Parameter& b = store.add("b", Shape{9});
  heed::test::fill_uniform(w.value, rng);
  OutputLayer out(5, 9, heed::onednn::Precision::kF32);
  out.set_weights(w, b);
  Tensor x = heed::test::random_tensor(Shape{3, 5}, rng);
  Tensor lp;
  out.log_probs(x, lp);
  REQUIRE(lp.shape() == Shape{3, 9});
  for (int64_t r = 0; r < 3; ++r) {
    double z = 0;
    for (int64_t o = 0; o < 9; ++o) z += std::exp(double(lp.data()[r * 9 + o]));
    CHECK(std::fabs(z - 1.0) < 1e-5);
  }
}

TEST_CASE("output layer: selected rows give the log-softmax over those words alone",
          "[layers][fast]") {
  heed::Rng rng = heed::make_rng(13);
  ParameterStore store;
  Parameter& w = store.add("w", Shape{9, 5});
  Parameter& b = store.add("b", Shape{9});
  heed::test::fill_uniform(w.value, rng);
  heed::test::fill_uniform(b.value, rng);
  OutputLayer out(5, 9, heed::onednn::Precision::kF32);
  out.set_weights(w, b);
  Tensor x = heed::test::random_tensor(Shape{3, 5}, rng);
  Tensor full, selected;
  out.log_probs(x, full);
  // Each set twice in a row: the second keeps the product of the first (same width).
  for (const std::vector<int32_t>& ids :
       {std::vector<int32_t>{0, 2, 3, 7}, std::vector<int32_t>{1, 4, 5, 8}, std::vector<int32_t>{6},
        std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}}) {
    for (int repeat = 0; repeat < 2; ++repeat) {
      out.select_rows(ids);
      out.selected_log_probs(x, selected);
      const auto k = static_cast<int64_t>(ids.size());
      REQUIRE(selected.shape() == Shape{3, k});
      for (int64_t r = 0; r < 3; ++r) {
        // log p restricted and renormalised: log p_full(id) − log Σ_selected p_full.
        double z = 0;
        for (int32_t id : ids) z += std::exp(double(full.data()[r * 9 + id]));
        for (int64_t c = 0; c < k; ++c) {
          const double want = double(full.data()[r * 9 + ids[size_t(c)]]) - std::log(z);
          CHECK(double(selected.data()[r * k + c]) == Approx(want).margin(1e-5));
        }
      }
    }
  }
  CHECK_THROWS_AS(out.select_rows({3, 2}), heed::InternalError);  // not ascending
}
