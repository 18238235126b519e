// FeedForwardPool (Raffel & Ellis): forward against a double-precision loop, padding exactness,
// finite-difference gradients for keys, w and b.
#include "heed/attention/feed_forward_pool.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "support/gradcheck.h"

using heed::tensor::Shape;
using heed::tensor::Tensor;

namespace {
constexpr int64_t kS = 5, kN = 3, kK = 4;
const std::vector<int64_t> kLengths = {5, 2, 3};
}  // namespace

TEST_CASE("ff-pool: matches the definition in double, padding gets weight 0", "[attention][fast]") {
  heed::layers::ParameterStore store;
  heed::attention::FeedForwardPool pool(kK, store, "pool/");
  heed::Rng rng = heed::make_rng(1);
  for (auto* p : store.all()) heed::test::fill_uniform(p->value, rng);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  Tensor pooled, weights;
  pool.forward(keys, kLengths, pooled, &weights);
  REQUIRE(pooled.shape() == Shape{kN, kK});
  REQUIRE(weights.shape() == Shape{kN, kS});
  const float* w = store.get("pool/w").value.data();
  const double b = store.get("pool/b").value.data()[0];
  for (int64_t n = 0; n < kN; ++n) {
    std::vector<double> e;
    double z = 0;
    for (int64_t s = 0; s < kLengths[size_t(n)]; ++s) {
      double dot = b;
      for (int64_t k = 0; k < kK; ++k)
        dot += double(w[k]) * double(keys.data()[(s * kN + n) * kK + k]);
      e.push_back(std::exp(std::tanh(dot)));
      z += e.back();
    }
    for (int64_t k = 0; k < kK; ++k) {
      double c = 0;
      for (size_t s = 0; s < e.size(); ++s)
        c += e[s] / z * double(keys.data()[(int64_t(s) * kN + n) * kK + k]);
      CHECK(pooled.data()[n * kK + k] == Approx(c).margin(1e-6));
    }
    for (int64_t s = 0; s < kS; ++s) {
      const double expected = s < kLengths[size_t(n)] ? e[size_t(s)] / z : 0.0;
      CHECK(weights.data()[n * kS + s] == Approx(expected).margin(1e-7));
    }
  }
}

TEST_CASE("ff-pool: finite-difference gradients (softmax and sparsemax)", "[attention][fast]") {
  for (const auto normalizer :
       {heed::attention::Normalizer::kSoftmax, heed::attention::Normalizer::kSparsemax}) {
    heed::layers::ParameterStore store;
    heed::attention::FeedForwardPool pool(kK, store, "pool/", normalizer);
    heed::Rng rng = heed::make_rng(2);
    for (auto* p : store.all()) heed::test::fill_uniform(p->value, rng, -2.f, 2.f);
    Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
    const heed::test::Projection projection(Shape{kN, kK}, rng);
    Tensor pooled;
    store.zero_grad();
    pool.forward(keys, kLengths, pooled);
    Tensor d_keys(keys.shape());
    pool.backward(projection.grad(), d_keys);
    auto loss = [&] {
      Tensor out;
      pool.forward(keys, kLengths, out);
      return projection(out);
    };
    std::vector<heed::test::GradParam> params = {heed::test::grad_param("keys", keys, d_keys)};
    for (auto* p : store.all())
      params.push_back(heed::test::grad_param(p->name, p->value, p->grad));
    heed::test::GradCheckOptions options;
    options.eps = 1e-3;
    options.max_coords = 60;
    const auto result = heed::test::gradcheck(loss, params, options);
    INFO(heed::attention::to_string(normalizer) << "\n" << result.report);
    CHECK(result.ok);
    CHECK(result.checked > 20);
    for (int64_t n = 0; n < kN; ++n) {
      for (int64_t s = kLengths[size_t(n)]; s < kS; ++s) {
        for (int64_t k = 0; k < kK; ++k) CHECK(d_keys.data()[(s * kN + n) * kK + k] == 0.f);
      }
    }
  }
}
