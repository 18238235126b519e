#include "heed/onednn/pack_bf16.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

#include "heed/common/rng.h"
#include "heed/onednn/context.h"
#include "heed/onednn/internal.h"
#include "heed/onednn/matmul.h"
#include "support/gradcheck.h"

using dnnl::memory;
using heed::tensor::Shape;
using heed::tensor::Tensor;

namespace {

// oneDNN's reorder of the rows × cols f32 matrix at src with the given strides into BA16a64b2a.
std::vector<uint16_t> reordered(const float* src, int64_t rows, int64_t cols, int64_t row_stride,
                                int64_t col_stride) {
  const memory::desc from({rows, cols}, memory::data_type::f32, {row_stride, col_stride});
  const memory::desc to({rows, cols}, memory::data_type::bf16, memory::format_tag::BA16a64b2a);
  std::vector<uint16_t> out(to.get_size() / 2, 0x5555);
  memory src_mem(from, heed::onednn::detail::engine(), const_cast<float*>(src));
  memory dst_mem(to, heed::onednn::detail::engine(), out.data());
  dnnl::reorder(src_mem, dst_mem).execute(heed::onednn::detail::stream(), src_mem, dst_mem);
  heed::onednn::detail::stream().wait();
  return out;
}

}  // namespace

TEST_CASE(
    "pack_bf16: heed's BA16a64b2a packing writes oneDNN's reorder's bytes, from rows and from "
    "columns, whole blocks and edges",
    "[onednn][fast]") {
  if (!heed::onednn::bf16_supported()) {
    WARN("SKIPPED: bf16 not supported by oneDNN on this CPU");
    return;
  }
  heed::onednn::set_threads(2);
  heed::Rng rng = heed::make_rng(8);
  struct Case {
    int64_t rows, cols;
  };
  for (const Case c :
       {Case{64, 128}, Case{512, 512}, Case{4371, 512}, Case{33, 65}, Case{1, 1}, Case{96, 70}}) {
    // The matrix stored row-major ([rows, cols], a weight W) and transposed ([cols, rows]: Wᵀ
    // read as rows × cols, as a product with W's transpose reads it).
    Tensor stored = heed::test::random_tensor(Shape{c.rows, c.cols}, rng);
    float* v = stored.data();
    v[0] = 1.f + 1.f / 256;  // a tie: to even
    if (c.rows * c.cols > 3) {
      v[1] = std::numeric_limits<float>::infinity();
      v[2] = -3.0e38f;
      v[3] = 1.f + 3.f / 256;  // a tie: up
    }
    for (const bool transposed : {false, true}) {
      const int64_t rows = transposed ? c.cols : c.rows, cols = transposed ? c.rows : c.cols;
      const int64_t row_stride = transposed ? 1 : c.cols, col_stride = transposed ? c.cols : 1;
      const memory::desc packed({rows, cols}, memory::data_type::bf16,
                                memory::format_tag::BA16a64b2a);
      REQUIRE(packed.get_size() == size_t(2 * ((rows + 31) / 32 * 32) * ((cols + 63) / 64 * 64)));
      std::vector<uint16_t> ours(packed.get_size() / 2, 0xaaaa);
      heed::onednn::detail::pack_ba16a64b2a(v, rows, cols, row_stride, col_stride, ours.data());
      const std::vector<uint16_t> theirs = reordered(v, rows, cols, row_stride, col_stride);
      INFO(rows << " x " << cols << (transposed ? " (transposed)" : ""));
      size_t differ = 0;
      for (size_t i = 0; i < ours.size(); ++i) differ += ours[i] != theirs[i];
      CHECK(differ == 0);
    }
  }
  heed::onednn::set_threads(1);
}

TEST_CASE("pack_bf16: a bf16 product's weights on this CPU, and what MatMul packs them into",
          "[onednn][fast]") {
  if (!heed::onednn::bf16_supported()) {
    WARN("SKIPPED: bf16 not supported by oneDNN on this CPU");
    return;
  }
  // What oneDNN asks for decides which packing MatMul uses; either way the product is the same
  // as with B converted on every call.
  heed::Rng rng = heed::make_rng(9);
  Tensor a = heed::test::random_tensor(Shape{64, 512}, rng);
  Tensor w = heed::test::random_tensor(Shape{300, 512}, rng);
  Tensor packed_c(Shape{64, 300}), converted_c(Shape{64, 300});
  heed::onednn::MatMul mm(heed::onednn::Precision::kBF16);
  heed::onednn::MatMulOptions constant;
  constant.constant_b = true;
  const auto wt = heed::onednn::MatrixRef::of(w).transposed();
  mm.run(heed::onednn::MatrixRef::of(a), wt, heed::onednn::MatrixRef::of(packed_c), constant);
  heed::onednn::MatMul plain(heed::onednn::Precision::kBF16);
  plain.run(heed::onednn::MatrixRef::of(a), wt, heed::onednn::MatrixRef::of(converted_c));
  const std::vector<float> p = packed_c.to_vector(), q = converted_c.to_vector();
  for (size_t i = 0; i < p.size(); ++i) {
    INFO("element " << i);
    CHECK(p[i] == Approx(q[i]).epsilon(1e-5).margin(1e-6));
  }
}
