#include "heed/onednn/matmul.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "heed/common/error.h"
#include "heed/common/rng.h"
#include "heed/onednn/context.h"
#include "heed/onednn/memory.h"
#include "support/gradcheck.h"
#include "support/reference_matmul.h"
#include "support/reference_util.h"

using heed::onednn::Activation;
using heed::onednn::MatMul;
using heed::onednn::MatMulOptions;
using heed::onednn::MatrixRef;
using heed::onednn::Precision;
using heed::tensor::DType;
using heed::tensor::Shape;
using heed::tensor::Tensor;
using heed::test::reference_matmul;
using heed::test::relative_error;

namespace {
constexpr double kTol = 1e-5;
}

TEST_CASE("matmul: plain and batched products match a triple loop", "[onednn][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(1);
  MatMul mm;
  Tensor a = heed::test::random_tensor(Shape{7, 13}, rng);
  Tensor b = heed::test::random_tensor(Shape{13, 5}, rng);
  Tensor c(Shape{7, 5});
  mm.run(MatrixRef::of(a), MatrixRef::of(b), MatrixRef::of(c));
  CHECK(relative_error(reference_matmul(MatrixRef::of(a), MatrixRef::of(b)), c) < kTol);

  // Batched, and batched with a broadcast B.
  Tensor ab = heed::test::random_tensor(Shape{3, 4, 6}, rng);
  Tensor bb = heed::test::random_tensor(Shape{3, 6, 2}, rng);
  Tensor cb(Shape{3, 4, 2});
  mm.run(MatrixRef::of(ab), MatrixRef::of(bb), MatrixRef::of(cb));
  CHECK(relative_error(reference_matmul(MatrixRef::of(ab), MatrixRef::of(bb)), cb) < kTol);
  Tensor w = heed::test::random_tensor(Shape{6, 2}, rng);
  mm.run(MatrixRef::of(ab), MatrixRef::of(w), MatrixRef::of(cb));
  CHECK(relative_error(reference_matmul(MatrixRef::of(ab), MatrixRef::of(w)), cb) < kTol);

  // Transposed operands are strided views.
  Tensor at = heed::test::random_tensor(Shape{13, 7}, rng);
  mm.run(MatrixRef::of(at).transposed(), MatrixRef::of(b), MatrixRef::of(c));
  CHECK(relative_error(reference_matmul(MatrixRef::of(at).transposed(), MatrixRef::of(b)), c) <
        kTol);
  CHECK_THROWS_AS(mm.run(MatrixRef::of(a), MatrixRef::of(a), MatrixRef::of(c)),
                  heed::InternalError);
}

TEST_CASE("matmul: attention over time-major encoder states without copies", "[onednn][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(2);
  const int64_t S = 6, N = 3, H = 8, Tq = 2;
  Tensor enc = heed::test::random_tensor(Shape{S, N, H}, rng);  // as the RNN writes it
  Tensor q = heed::test::random_tensor(Shape{N, Tq, H}, rng);
  MatMul mm;
  // scores [N, Tq, S] = Q · Kᵀ with Kᵀ a strided view of enc, masked by an addend.
  Tensor mask(Shape{N, S});
  mask.data()[0 * S + 5] = -1e9f;
  mask.data()[2 * S + 4] = -1e9f;
  mask.data()[2 * S + 5] = -1e9f;
  Tensor scores(Shape{N, Tq, S});
  MatMulOptions masked;
  masked.addend = &mask;
  masked.alpha = 0.5f;
  const MatrixRef keys_t = MatrixRef::time_major(enc).transposed();
  mm.run(MatrixRef::of(q), keys_t, MatrixRef::of(scores), masked);
  std::vector<double> ref = reference_matmul(MatrixRef::of(q), keys_t);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t t = 0; t < Tq; ++t) {
      for (int64_t s = 0; s < S; ++s) {
        double& r = ref[static_cast<size_t>((n * Tq + t) * S + s)];
        r = 0.5 * r + static_cast<double>(mask.data()[n * S + s]);
      }
    }
  }
  CHECK(relative_error(ref, scores) < kTol);
  // context [N, Tq, H] = P · V with V a strided view, written into a time-major [Tq, N, H] view.
  Tensor p = heed::test::random_tensor(Shape{N, Tq, S}, rng, 0, 1);
  Tensor ctx(Shape{Tq, N, H});
  mm.run(MatrixRef::of(p), MatrixRef::time_major(enc), MatrixRef::time_major(ctx));
  const std::vector<double> cref = reference_matmul(MatrixRef::of(p), MatrixRef::time_major(enc));
  std::vector<double> got;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t t = 0; t < Tq; ++t) {
      for (int64_t h = 0; h < H; ++h)
        got.push_back(static_cast<double>(ctx.data()[(t * N + n) * H + h]));
    }
  }
  CHECK(relative_error(cref, got) < kTol);
}

TEST_CASE("matmul: accumulate, bias and tanh", "[onednn][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(3);
  MatMul mm;
  Tensor a = heed::test::random_tensor(Shape{5, 4}, rng);
  Tensor b = heed::test::random_tensor(Shape{4, 3}, rng);
  Tensor c0 = heed::test::random_tensor(Shape{5, 3}, rng);
  Tensor bias = heed::test::random_tensor(Shape{3}, rng);
  const std::vector<double> ab = reference_matmul(MatrixRef::of(a), MatrixRef::of(b));

  Tensor c = c0.clone();
  MatMulOptions acc;
  acc.accumulate = true;
  mm.run(MatrixRef::of(a), MatrixRef::of(b), MatrixRef::of(c), acc);
  std::vector<double> ref(ab);
  for (size_t i = 0; i < ref.size(); ++i) ref[i] += static_cast<double>(c0.data()[i]);
  CHECK(relative_error(ref, c) < kTol);

  MatMulOptions biased;
  biased.bias = &bias;
  biased.activation = Activation::kTanh;
  mm.run(MatrixRef::of(a), MatrixRef::of(b), MatrixRef::of(c), biased);
  for (size_t i = 0; i < ref.size(); ++i) {
    ref[i] = std::tanh(ab[i] + static_cast<double>(bias.data()[i % 3]));
  }
  CHECK(relative_error(ref, c) < kTol);
  CHECK(mm.plan_count() == 2);
  mm.run(MatrixRef::of(a), MatrixRef::of(b), MatrixRef::of(c), biased);
  CHECK(mm.plan_count() == 2);  // cached
}

TEST_CASE(
    "matmul: a weight used with hundreds of row counts is packed in a few layouts, and the "
    "plans stay bounded",
    "[onednn][fast]") {
  heed::onednn::set_threads(2);
  heed::Rng rng = heed::make_rng(5);
  for (const auto precision : {heed::onednn::Precision::kF32, heed::onednn::Precision::kBF16}) {
    if (precision == heed::onednn::Precision::kBF16 && !heed::onednn::bf16_supported()) continue;
    // The output layer's shape in training: rows of every chunk size, weight [V, H] transposed.
    MatMul mm(precision);
    Tensor w = heed::test::random_tensor(Shape{300, 512}, rng);
    MatrixRef b = MatrixRef::of(w);
    std::swap(b.rows, b.cols);
    std::swap(b.row_stride, b.col_stride);
    MatMulOptions constant;
    constant.constant_b = true;
    for (int round = 0; round < 2; ++round) {
      for (int64_t rows = 1; rows <= 300; ++rows) {
        Tensor a = heed::test::random_tensor(Shape{rows, 512}, rng);
        Tensor c(Shape{rows, 300});
        mm.run(MatrixRef::of(a), b, MatrixRef::of(c), constant);
      }
    }
    INFO(heed::onednn::precision_name(precision) << ": " << mm.packs_made() << " packs");
    CHECK(mm.packs_made() <= 4);
    CHECK(mm.plan_count() <= 64);
  }
}

TEST_CASE("matmul: a constant B is packed once until weights_changed", "[onednn][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(4);
  MatMul mm;
  Tensor a = heed::test::random_tensor(Shape{4, 6}, rng);
  Tensor w = heed::test::random_tensor(Shape{5, 6}, rng);  // [out, in], used as Wᵀ
  Tensor c(Shape{4, 5});
  MatMulOptions constant;
  constant.constant_b = true;
  const MatrixRef wt = MatrixRef::of(w).transposed();
  mm.run(MatrixRef::of(a), wt, MatrixRef::of(c), constant);
  const std::vector<double> before = reference_matmul(MatrixRef::of(a), wt);
  CHECK(relative_error(before, c) < kTol);
  w.data()[0] += 1.f;  // updated in place, not announced: the packed copy is still used
  mm.run(MatrixRef::of(a), wt, MatrixRef::of(c), constant);
  CHECK(relative_error(before, c) < kTol);
  mm.weights_changed();
  mm.run(MatrixRef::of(a), wt, MatrixRef::of(c), constant);
  CHECK(relative_error(reference_matmul(MatrixRef::of(a), wt), c) < kTol);
}

TEST_CASE("matmul: constant keys that change at every step keep two packed copies",
          "[onednn][fast]") {
  // A beam search's attention: the keys are regathered (and announced) at every step, for ever
  // fewer rows. Each step's copies are stale after it; only two buffers stay.
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(6);
  MatMul mm;
  MatMulOptions constant;
  constant.constant_b = true;
  for (int64_t rows = 30; rows >= 1; --rows) {
    Tensor keys = heed::test::random_tensor(Shape{rows, 7, 16}, rng);  // [N, S, K]
    Tensor query = heed::test::random_tensor(Shape{rows, 1, 16}, rng);
    Tensor scores(Shape{rows, 1, 7});
    const MatrixRef kt = MatrixRef::of(keys).transposed();
    mm.weights_changed();
    CHECK(mm.packed_count() <= 2);
    mm.run(MatrixRef::of(query), kt, MatrixRef::of(scores), constant);
    CHECK(relative_error(reference_matmul(MatrixRef::of(query), kt), scores) < kTol);
    CHECK(mm.packed_count() <= 2);
  }
}

TEST_CASE("matmul: bf16 products are close to f32", "[onednn][fast]") {
  if (!heed::onednn::bf16_supported()) {
    WARN("SKIPPED: bf16 not supported by oneDNN on this CPU");
    return;
  }
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(5);
  MatMul mm(Precision::kBF16);
  Tensor a = heed::test::random_tensor(Shape{2, 9, 32}, rng);
  Tensor b = heed::test::random_tensor(Shape{32, 17}, rng);
  Tensor c(Shape{2, 9, 17});
  const std::vector<double> ref = reference_matmul(MatrixRef::of(a), MatrixRef::of(b));
  // f32 operands converted inside, with B constant or not.
  mm.run(MatrixRef::of(a), MatrixRef::of(b), MatrixRef::of(c));
  CHECK(relative_error(ref, c) < 2e-2);
  CHECK(relative_error(ref, c) > 1e-7);  // really bf16
  MatMulOptions constant;
  constant.constant_b = true;
  mm.run(MatrixRef::of(a), MatrixRef::of(b), MatrixRef::of(c), constant);
  CHECK(relative_error(ref, c) < 2e-2);
  // bf16 operands used directly, bf16 output.
  Tensor a16(a.shape(), DType::kBF16), b16(b.shape(), DType::kBF16), c16(c.shape(), DType::kBF16);
  heed::onednn::convert(a, a16);
  heed::onednn::convert(b, b16);
  mm.run(MatrixRef::of(a16), MatrixRef::of(b16), MatrixRef::of(c16));
  CHECK(relative_error(ref, c16) < 2e-2);
  // Strided time-major views are converted too.
  Tensor enc = heed::test::random_tensor(Shape{5, 2, 32}, rng);
  Tensor q = heed::test::random_tensor(Shape{2, 3, 32}, rng);
  Tensor s(Shape{2, 3, 5});
  const MatrixRef kt = MatrixRef::time_major(enc).transposed();
  mm.run(MatrixRef::of(q), kt, MatrixRef::of(s));
  CHECK(relative_error(reference_matmul(MatrixRef::of(q), kt), s) < 2e-2);
}

TEST_CASE(
    "matmul: in bf16 a small f32 A (heed's conversion) and a large one (oneDNN's reorder) round "
    "the same way",
    "[onednn][fast]") {
  if (!heed::onednn::bf16_supported()) {
    WARN("SKIPPED: bf16 not supported by oneDNN on this CPU");
    return;
  }
  heed::onednn::set_threads(2);
  heed::Rng rng = heed::make_rng(6);
  // 320 × 256 is past the small conversion's 65,536 elements; its rows 64 at a time are not.
  Tensor a = heed::test::random_tensor(Shape{320, 256}, rng);
  Tensor b = heed::test::random_tensor(Shape{256, 48}, rng);
  for (int64_t r = 0; r < 320; r += 7) a.data()[r * 256 + r % 256] = 1.f + 1.f / 256;  // ties
  Tensor whole(Shape{320, 48}), parts(Shape{320, 48});
  MatMul mm(Precision::kBF16);
  mm.run(MatrixRef::of(a), MatrixRef::of(b), MatrixRef::of(whole));
  for (int64_t r = 0; r < 320; r += 64) {
    mm.run(MatrixRef::of(a.slice(r, r + 64)), MatrixRef::of(b),
           MatrixRef::of(parts.slice(r, r + 64)));
  }
  CHECK(relative_error(reference_matmul(MatrixRef::of(a), MatrixRef::of(b)), whole) > 1e-7);
  const std::vector<float> w = whole.to_vector(), p = parts.to_vector();
  for (size_t i = 0; i < w.size(); ++i) {
    INFO("element " << i);
    CHECK(p[i] == Approx(w[i]).epsilon(1e-5).margin(1e-6));
  }
  heed::onednn::set_threads(1);
}

TEST_CASE("matmul: oneDNN failures surface as BackendError", "[onednn][fast]") {
  heed::onednn::set_threads(1);
  MatMul mm;
  Tensor a(Shape{4, 4}), b(Shape{4, 4}), c(Shape{4, 4});
  MatrixRef bad = MatrixRef::of(a);
  bad.row_stride = -4;  // oneDNN refuses negative strides
  try {
    mm.run(bad, MatrixRef::of(b), MatrixRef::of(c));
    FAIL("no exception");
  } catch (const heed::BackendError& e) {
    CHECK(std::string(e.what()).rfind("matmul: ", 0) == 0);
    CHECK(std::string(e.what()).find("status") != std::string::npos);
  }
}
