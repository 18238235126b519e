#include "heed/onednn/memory.h"

#include <catch2/catch.hpp>

#include "heed/common/rng.h"
#include "heed/onednn/context.h"
#include "support/gradcheck.h"

using heed::tensor::DType;
using heed::tensor::Shape;
using heed::tensor::Tensor;

TEST_CASE("memory: convert rounds like the bf16 helpers and round-trips", "[onednn][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(3);
  Tensor f = heed::test::random_tensor(Shape{1000}, rng, -100, 100);
  Tensor b(Shape{1000}, DType::kBF16);
  heed::onednn::convert(f, b);
  for (int64_t i = 0; i < 1000; ++i) {
    REQUIRE(b.data_bf16()[i] == heed::tensor::float_to_bf16(f.data()[i]));
  }
  Tensor back(Shape{10, 100});
  heed::onednn::convert(b, back);
  CHECK(back.to_vector() == b.to_vector());
  Tensor copy(Shape{1000});
  heed::onednn::convert(f, copy);
  CHECK(copy.to_vector() == f.to_vector());
}
