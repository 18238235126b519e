#include "heed/onednn/linear.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "heed/common/error.h"
#include "heed/common/rng.h"
#include "heed/onednn/context.h"
#include "heed/tensor/tensor_ops.h"
#include "support/gradcheck.h"
#include "support/reference_util.h"

using heed::onednn::Activation;
using heed::onednn::Linear;
using heed::onednn::Precision;
using heed::tensor::Shape;
using heed::tensor::Tensor;
using heed::test::relative_error;

namespace {

constexpr double kTol = 1e-5;

struct LinearRef {
  std::vector<double> y, dx, dw, db;
};

// y = x·Wᵀ + b over rows of x [M, in]; backward products for dy [M, out].
LinearRef reference(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& dy) {
  const int64_t in = w.dim(1), out = w.dim(0), m = x.numel() / in;
  LinearRef r;
  r.y.assign(static_cast<size_t>(m * out), 0.0);
  r.dx.assign(static_cast<size_t>(m * in), 0.0);
  r.dw.assign(static_cast<size_t>(out * in), 0.0);
  r.db.assign(static_cast<size_t>(out), 0.0);
  const auto X = [&](int64_t i, int64_t k) { return static_cast<double>(x.data()[i * in + k]); };
  const auto W = [&](int64_t o, int64_t k) { return static_cast<double>(w.data()[o * in + k]); };
  const auto D = [&](int64_t i, int64_t o) { return static_cast<double>(dy.data()[i * out + o]); };
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t o = 0; o < out; ++o) {
      double s = static_cast<double>(b.data()[o]);
      for (int64_t k = 0; k < in; ++k) s += X(i, k) * W(o, k);
      r.y[static_cast<size_t>(i * out + o)] = s;
      r.db[static_cast<size_t>(o)] += D(i, o);
      for (int64_t k = 0; k < in; ++k) {
        r.dx[static_cast<size_t>(i * in + k)] += D(i, o) * W(o, k);
        r.dw[static_cast<size_t>(o * in + k)] += D(i, o) * X(i, k);
      }
    }
  }
  return r;
}

}  // namespace

TEST_CASE("linear: forward and both backward products match loops", "[onednn][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(21);
  const int64_t in = 12, out = 7;
  Tensor w = heed::test::random_tensor(Shape{out, in}, rng);
  Tensor b = heed::test::random_tensor(Shape{out}, rng);
  Tensor x = heed::test::random_tensor(Shape{3, 5, in}, rng);  // leading dims fold into rows
  Tensor dy = heed::test::random_tensor(Shape{3, 5, out}, rng);
  const LinearRef ref = reference(x, w, b, dy);

  Linear lin(in, out);
  lin.set_weights(w, &b);
  Tensor y(Shape{3, 5, out});
  lin.forward(x, y);
  CHECK(relative_error(ref.y, y) < kTol);

  Tensor dx(Shape{3, 5, in});
  lin.backward_data(dy, dx);
  CHECK(relative_error(ref.dx, dx) < kTol);
  lin.backward_data(dy, dx, /*accumulate=*/true);
  std::vector<double> twice(ref.dx);
  for (double& v : twice) v *= 2;
  CHECK(relative_error(twice, dx) < kTol);

  Tensor dw(Shape{out, in}), db(Shape{out});
  lin.backward_weights(x, dy, dw, &db);
  CHECK(relative_error(ref.dw, dw) < kTol);
  CHECK(relative_error(ref.db, db) < kTol);
  lin.backward_weights(x, dy, dw, &db);  // accumulates
  std::vector<double> dw2(ref.dw), db2(ref.db);
  for (double& v : dw2) v *= 2;
  for (double& v : db2) v *= 2;
  CHECK(relative_error(dw2, dw) < kTol);
  CHECK(relative_error(db2, db) < kTol);

  // Combined backward, fused tanh forward, no bias.
  Tensor dx3(Shape{3, 5, in}), dw3(Shape{out, in}), db3(Shape{out});
  lin.backward(x, dy, &dx3, dw3, &db3);
  CHECK(relative_error(ref.dx, dx3) < kTol);
  CHECK(relative_error(ref.dw, dw3) < kTol);
  lin.forward(x, y, Activation::kTanh);
  std::vector<double> ty(ref.y);
  for (double& v : ty) v = std::tanh(v);
  CHECK(relative_error(ty, y) < kTol);
  Tensor zero_b(Shape{out});
  const LinearRef nb = reference(x, w, zero_b, dy);
  lin.set_weights(w, nullptr);
  lin.forward(x, y);
  CHECK(relative_error(nb.y, y) < kTol);
}

TEST_CASE("linear: weights_changed picks up in-place updates", "[onednn][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(22);
  Tensor w = heed::test::random_tensor(Shape{4, 3}, rng);
  Tensor b(Shape{4});
  Tensor x = heed::test::random_tensor(Shape{2, 3}, rng);
  Tensor dy(Shape{2, 4});
  Linear lin(3, 4);
  lin.set_weights(w, &b);
  Tensor y(Shape{2, 4});
  lin.forward(x, y);
  heed::tensor::scale(w, 2.f);
  lin.weights_changed();
  Tensor y2(Shape{2, 4});
  lin.forward(x, y2);
  heed::tensor::scale(y, 2.f);
  CHECK(heed::tensor::max_abs_diff(y, y2) < 1e-5);
  // Several row counts share one packed weight copy, and all see the update.
  Tensor x5 = heed::test::random_tensor(Shape{5, 3}, rng);
  Tensor y5(Shape{5, 4}), y5b(Shape{5, 4});
  lin.forward(x5, y5);
  heed::tensor::scale(w, 0.5f);
  lin.weights_changed();
  lin.forward(x, y2);
  lin.forward(x5, y5b);
  heed::tensor::scale(y5, 0.5f);
  heed::tensor::scale(y, 0.5f);
  CHECK(heed::tensor::max_abs_diff(y, y2) < 1e-5);
  CHECK(heed::tensor::max_abs_diff(y5, y5b) < 1e-5);
  CHECK_THROWS_AS(Linear(0, 3), heed::ConfigError);
  Tensor wrong = dy.view(Shape{4, 2});
  CHECK_THROWS_AS(lin.forward(x, wrong), heed::InternalError);
}

TEST_CASE("linear: gradients pass a finite-difference check", "[onednn][grad]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(23);
  const int64_t in = 6, out = 5;
  Tensor w = heed::test::random_tensor(Shape{out, in}, rng);
  Tensor b = heed::test::random_tensor(Shape{out}, rng);
  Tensor x = heed::test::random_tensor(Shape{4, in}, rng);
  heed::test::Projection proj(Shape{4, out}, rng);
  Linear lin(in, out);
  lin.set_weights(w, &b);
  Tensor y(Shape{4, out});
  const auto loss = [&] {
    lin.weights_changed();
    lin.forward(x, y, Activation::kTanh);
    return proj(y);
  };
  loss();
  // dL/d(pre-activation) = proj · (1 − y²), then the two products.
  Tensor dpre(Shape{4, out});
  heed::tensor::tanh_backward(y, proj.grad(), dpre);
  Tensor dx(Shape{4, in}), dw(Shape{out, in}), db(Shape{out});
  lin.backward(x, dpre, &dx, dw, &db);
  const auto result = heed::test::gradcheck(
      loss, {heed::test::grad_param("weight", w, dw), heed::test::grad_param("bias", b, db),
             heed::test::grad_param("x", x, dx)});
  INFO(result.report);
  CHECK(result.ok);
  CHECK(result.checked > 40);
}

TEST_CASE("linear: bf16 is close to f32", "[onednn][fast]") {
  if (!heed::onednn::bf16_supported()) {
    WARN("SKIPPED: bf16 not supported by oneDNN on this CPU");
    return;
  }
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(24);
  const int64_t in = 64, out = 40;
  Tensor w = heed::test::random_tensor(Shape{out, in}, rng);
  Tensor b = heed::test::random_tensor(Shape{out}, rng);
  Tensor x = heed::test::random_tensor(Shape{33, in}, rng);
  Tensor dy = heed::test::random_tensor(Shape{33, out}, rng);
  const LinearRef ref = reference(x, w, b, dy);
  Linear lin(in, out, Precision::kBF16);
  lin.set_weights(w, &b);
  Tensor y(Shape{33, out}), dx(Shape{33, in}), dw(Shape{out, in}), db(Shape{out});
  lin.forward(x, y);
  lin.backward(x, dy, &dx, dw, &db);
  CHECK(relative_error(ref.y, y) < 2e-2);
  CHECK(relative_error(ref.dx, dx) < 2e-2);
  CHECK(relative_error(ref.dw, dw) < 2e-2);
  CHECK(relative_error(ref.db, db) < 2e-2);
  CHECK(relative_error(ref.y, y) > 1e-7);
}
