#include "heed/tensor/tensor_ops.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "heed/common/error.h"
#include "heed/common/rng.h"
#include "support/gradcheck.h"

using heed::tensor::DType;
using heed::tensor::Shape;
using heed::tensor::Tensor;
namespace ht = heed::tensor;

TEST_CASE("tensor_ops: add, axpy, scale, copy", "[tensor][fast]") {
  Tensor a = Tensor::from_values(Shape{2, 2}, {1, 2, 3, 4});
  Tensor b = Tensor::from_values(Shape{2, 2}, {10, 20, 30, 40});
  Tensor c(Shape{2, 2});
  ht::add(a, b, c);
  CHECK(c.to_vector() == std::vector<float>{11, 22, 33, 44});
  ht::axpy(-2.f, a, c);
  CHECK(c.to_vector() == std::vector<float>{9, 18, 27, 36});
  ht::scale(c, 0.5f);
  CHECK(c.to_vector() == std::vector<float>{4.5f, 9, 13.5f, 18});
  Tensor bf(Shape{4}, DType::kBF16);
  ht::copy(c, bf);
  Tensor back(Shape{4});
  ht::copy(bf, back);
  CHECK(back.to_vector() == c.to_vector());  // these values are exact in bf16
  CHECK_THROWS_AS(ht::add(a, Tensor(Shape{3}), c), heed::InternalError);
}

TEST_CASE("tensor_ops: column blocks and gathered rows", "[tensor][fast]") {
  // [2, 1, 2] rows of 2 into [2, 3] at column 1, and back.
  const Tensor block = Tensor::from_values(Shape{2, 1, 2}, {1, 2, 3, 4});
  Tensor wide(Shape{2, 3});
  ht::copy_columns(block, wide, 1);
  CHECK(wide.to_vector() == std::vector<float>{0, 1, 2, 0, 3, 4});
  Tensor back(Shape{2, 2});
  ht::take_columns(wide, 1, back);
  CHECK(back.to_vector() == block.to_vector());
  CHECK_THROWS_AS(ht::copy_columns(block, wide, 2), heed::InternalError);
  Tensor too_many_rows(Shape{4, 1});
  CHECK_THROWS_AS(ht::take_columns(wide, 0, too_many_rows), heed::InternalError);

  Tensor gathered;
  ht::gather_rows(wide, {1, 1, 0}, gathered);
  CHECK(gathered.shape() == Shape{3, 3});
  CHECK(gathered.to_vector() == std::vector<float>{0, 3, 4, 0, 3, 4, 0, 1, 2});
  CHECK_THROWS_AS(ht::gather_rows(wide, {2}, gathered), heed::InternalError);
}

TEST_CASE("tensor_ops: tanh and sigmoid with their backward", "[tensor][fast]") {
  Tensor x = Tensor::from_values(Shape{3}, {-1.f, 0.f, 2.f});
  Tensor y(Shape{3}), dx(Shape{3});
  Tensor dy = Tensor::from_values(Shape{3}, {1.f, 2.f, 3.f});
  ht::tanh(x, y);
  CHECK(y.data()[2] == Approx(std::tanh(2.f)));
  ht::tanh_backward(y, dy, dx);
  CHECK(dx.data()[0] == Approx(1.f * (1 - std::tanh(1.f) * std::tanh(1.f))));
  ht::sigmoid(x, y);
  CHECK(y.data()[1] == Approx(0.5f));
  ht::sigmoid_backward(y, dy, dx);
  CHECK(dx.data()[1] == Approx(2.f * 0.25f));
  ht::tanh(x, x);  // in place
  CHECK(x.data()[0] == Approx(-std::tanh(1.f)));
}

TEST_CASE("tensor_ops: softmax and log_softmax rows, stable for large inputs", "[tensor][fast]") {
  Tensor x = Tensor::from_values(Shape{2, 3}, {1, 2, 3, 1000, 1000, -1000});
  Tensor y(Shape{2, 3}), ly(Shape{2, 3});
  ht::softmax(x, y);
  ht::log_softmax(x, ly);
  const double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(3.0);
  CHECK(y.data()[2] == Approx(e3 / (e1 + e2 + e3)));
  CHECK(y.data()[3] == Approx(0.5));
  CHECK(y.data()[5] == Approx(0.0).margin(1e-30));
  CHECK(ly.data()[0] == Approx(1 - std::log(e1 + e2 + e3)));
  CHECK(ly.data()[4] == Approx(-std::log(2.0)));
  for (int r = 0; r < 2; ++r) {
    double s = 0;
    for (int c = 0; c < 3; ++c) s += static_cast<double>(y.data()[r * 3 + c]);
    CHECK(s == Approx(1.0));
  }
}

TEST_CASE("tensor_ops: softmax and log_softmax backward match finite differences",
          "[tensor][grad]") {
  heed::Rng rng = heed::make_rng(11);
  for (bool log : {false, true}) {
    Tensor x = heed::test::random_tensor(Shape{3, 5}, rng, -2, 2);
    heed::test::Projection proj(Shape{3, 5}, rng);
    Tensor y(Shape{3, 5}), dx(Shape{3, 5});
    const auto forward = [&] {
      if (log) {
        ht::log_softmax(x, y);
      } else {
        ht::softmax(x, y);
      }
      return proj(y);
    };
    forward();
    if (log) {
      ht::log_softmax_backward(y, proj.grad(), dx);
    } else {
      ht::softmax_backward(y, proj.grad(), dx);
    }
    heed::test::GradCheckOptions options;
    options.eps = 1e-2;
    const auto result =
        heed::test::gradcheck(forward, {heed::test::grad_param("x", x, dx)}, options);
    INFO(result.report);
    CHECK(result.ok);
    CHECK(result.checked == 15);
  }
}

TEST_CASE("tensor_ops: masked_fill broadcasts the mask", "[tensor][fast]") {
  Tensor x(Shape{2, 2, 3});
  x.fill(1.f);
  // [N=2, 1, S=3] mask: sentence 0 masks position 2, sentence 1 masks 1 and 2.
  Tensor mask = Tensor::from_values(Shape{2, 1, 3}, {0, 0, 1, 0, 1, 1});
  ht::masked_fill(x, mask, -1e9f);
  CHECK(x.to_vector() ==
        std::vector<float>{1, 1, -1e9f, 1, 1, -1e9f, 1, -1e9f, -1e9f, 1, -1e9f, -1e9f});
  CHECK_THROWS_AS(ht::masked_fill(x, Tensor(Shape{2, 3}), 0.f), heed::InternalError);
  CHECK_THROWS_AS(ht::masked_fill(x, Tensor(Shape{2, 2, 2}), 0.f), heed::InternalError);
}

TEST_CASE("tensor_ops: sum over an axis and max_abs_diff", "[tensor][fast]") {
  Tensor x = Tensor::from_values(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(ht::sum(x, 0).to_vector() == std::vector<float>{5, 7, 9});
  CHECK(ht::sum(x, -1).to_vector() == std::vector<float>{6, 15});
  CHECK(ht::sum(x, 1).shape() == Shape{2});
  Tensor z = Tensor::from_values(Shape{2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(ht::sum(z, 1).to_vector() == std::vector<float>{4, 6, 12, 14});
  Tensor y = x.clone();
  y.data()[4] = 5.5f;
  CHECK(ht::max_abs_diff(x, y) == Approx(0.5));
  y.data()[0] = NAN;
  CHECK(std::isinf(ht::max_abs_diff(x, y)));
}

TEST_CASE("gradcheck: accepts a right gradient and reports a wrong one", "[tensor][fast]") {
  // L = Σ x_i³: dL/dx = 3x².
  Tensor x = Tensor::from_values(Shape{4}, {0.5f, -1.f, 2.f, 0.25f});
  Tensor good(Shape{4}), bad(Shape{4});
  for (int i = 0; i < 4; ++i) {
    good.data()[i] = 3 * x.data()[i] * x.data()[i];
    bad.data()[i] = good.data()[i];
  }
  bad.data()[2] += 0.5f;
  const auto loss = [&] {
    double s = 0;
    for (int i = 0; i < 4; ++i) s += std::pow(static_cast<double>(x.data()[i]), 3);
    return s;
  };
  const auto ok = heed::test::gradcheck(loss, {heed::test::grad_param("x", x, good)});
  CHECK(ok.ok);
  CHECK(ok.checked == 4);
  const auto wrong = heed::test::gradcheck(loss, {heed::test::grad_param("x", x, bad)});
  CHECK_FALSE(wrong.ok);
  CHECK(wrong.report.find("x[2]") != std::string::npos);
  CHECK(x.to_vector() == std::vector<float>{0.5f, -1.f, 2.f, 0.25f});  // restored
  // |x| has a kink at 0: skipped, not failed.
  Tensor k = Tensor::from_values(Shape{1}, {0.f});
  Tensor gk = Tensor::from_values(Shape{1}, {0.7f});
  const auto kink =
      heed::test::gradcheck([&] { return std::fabs(static_cast<double>(k.data()[0]) - 0.001); },
                            {heed::test::grad_param("k", k, gk)});
  CHECK(kink.skipped == 1);
  CHECK(kink.ok);
}
