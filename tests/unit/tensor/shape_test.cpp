#include "heed/tensor/shape.h"

#include <catch2/catch.hpp>

#include "heed/common/error.h"

using heed::tensor::Shape;

TEST_CASE("shape: dims, numel, strides and printing", "[tensor][fast]") {
  const Shape s{2, 3, 4};
  CHECK(s.rank() == 3);
  CHECK(s.numel() == 24);
  CHECK(s[1] == 3);
  CHECK(s.dim(-1) == 4);
  CHECK(s.back() == 4);
  CHECK(s.stride(0) == 12);
  CHECK(s.stride(-1) == 1);
  CHECK(s.to_string() == "[2, 3, 4]");
  CHECK(s == Shape(std::vector<int64_t>{2, 3, 4}));
  CHECK(s != Shape{2, 3});
  CHECK(Shape().numel() == 1);
  CHECK(Shape{5, 0}.numel() == 0);
}

TEST_CASE("shape: rejects bad dims", "[tensor][fast]") {
  CHECK_THROWS_AS(Shape({1, -2}), heed::InternalError);
  CHECK_THROWS_AS(Shape({1, 2, 3, 4, 5, 6, 7}), heed::InternalError);
  CHECK_THROWS_AS(Shape({1, 2}).dim(2), heed::InternalError);
}
