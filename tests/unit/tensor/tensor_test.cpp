#include "heed/tensor/tensor.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>

#include "heed/common/error.h"

using heed::tensor::DType;
using heed::tensor::Shape;
using heed::tensor::Tensor;
namespace ht = heed::tensor;

TEST_CASE("tensor: owning tensors are zeroed and 64-byte aligned", "[tensor][fast]") {
  Tensor t(Shape{3, 5});
  CHECK(t.numel() == 15);
  CHECK(t.bytes() == 60);
  CHECK(t.owns_data());
  CHECK(reinterpret_cast<uintptr_t>(t.data()) % 64 == 0);
  for (float v : t.to_vector()) CHECK(v == 0.f);
  Tensor b(Shape{7}, DType::kBF16);
  CHECK(b.bytes() == 14);
  CHECK(reinterpret_cast<uintptr_t>(b.raw()) % 64 == 0);
  CHECK_THROWS_AS(b.data(), heed::InternalError);
}

TEST_CASE("tensor: views alias without copying", "[tensor][fast]") {
  Tensor t = Tensor::from_values(Shape{2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor v = t.view(Shape{3, 2});
  CHECK(v.data() == t.data());
  v.data()[5] = 50;
  CHECK(t.data()[5] == 50);
  Tensor row = t.select(1);
  CHECK(row.shape() == Shape{3});
  CHECK(row.data()[0] == 3);
  Tensor s = t.slice(1, 2);
  CHECK(s.shape() == Shape{1, 3});
  CHECK(s.data() == t.data() + 3);
  CHECK_THROWS_AS(t.view(Shape{4}), heed::InternalError);
  CHECK_THROWS_AS(t.slice(1, 3), heed::InternalError);
  // A view keeps the storage alive.
  Tensor keep;
  {
    Tensor owner = Tensor::from_values(Shape{2}, {7, 8});
    keep = owner.view(Shape{2});
  }
  CHECK(keep.data()[1] == 8);
}

TEST_CASE("tensor: borrowed, cloned, moved, filled", "[tensor][fast]") {
  float buffer[4] = {1, 2, 3, 4};
  Tensor b = Tensor::borrow(buffer, Shape{2, 2});
  CHECK_FALSE(b.owns_data());
  CHECK(b.data() == buffer);
  Tensor c = b.clone();
  CHECK(c.owns_data());
  c.data()[0] = 9;
  CHECK(buffer[0] == 1);
  Tensor m = std::move(c);
  CHECK(c.empty());
  CHECK(m.data()[0] == 9);
  m.fill(2.5f);
  CHECK(m.to_vector() == std::vector<float>{2.5f, 2.5f, 2.5f, 2.5f});
  m.zero();
  CHECK(m.to_vector() == std::vector<float>{0, 0, 0, 0});
}

TEST_CASE("tensor: resize reuses capacity", "[tensor][fast]") {
  Tensor t(Shape{100});
  const void* p = t.raw();
  t.resize(Shape{10, 5});
  CHECK(t.raw() == p);
  CHECK(t.shape() == Shape{10, 5});
  t.resize(Shape{30}, DType::kBF16);
  CHECK(t.raw() == p);
  t.resize(Shape{1000});
  CHECK(t.numel() == 1000);
  // A tensor shared with a view must not change under it.
  Tensor v = t.view(Shape{1000});
  const void* q = t.raw();
  t.resize(Shape{10});
  CHECK(t.raw() != q);
  CHECK(v.numel() == 1000);
}

TEST_CASE("tensor: bf16 conversion rounds to nearest even", "[tensor][fast]") {
  CHECK(ht::float_to_bf16(1.0f) == 0x3f80);
  CHECK(ht::bf16_to_float(0x3f80) == 1.0f);
  // 1 + 2^-8 is exactly half-way between bf16 1.0 and 1.0078125: ties go to even (1.0).
  CHECK(ht::float_to_bf16(1.00390625f) == 0x3f80);
  // 1.0078125 + 2^-8 is half-way between 0x3f81 (odd) and 0x3f82: goes up to even.
  CHECK(ht::float_to_bf16(1.01171875f) == 0x3f82);
  // Above half-way rounds up.
  CHECK(ht::float_to_bf16(1.0040f) == 0x3f81);
  CHECK(ht::float_to_bf16(-2.0f) == 0xc000);
  CHECK(std::isnan(ht::bf16_to_float(ht::float_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(std::isinf(ht::bf16_to_float(ht::float_to_bf16(std::numeric_limits<float>::max()))));
  CHECK(ht::bf16_to_float(ht::float_to_bf16(std::numeric_limits<float>::infinity())) ==
        std::numeric_limits<float>::infinity());
  Tensor f = Tensor::from_values(Shape{3}, {0.1f, -3.3f, 1000.f});
  Tensor b(Shape{3}, DType::kBF16);
  ht::float_to_bf16(f.data(), b.data_bf16(), 3);
  const std::vector<float> back = b.to_vector();
  for (int i = 0; i < 3; ++i) {
    CHECK(std::fabs(back[static_cast<size_t>(i)] - f.data()[i]) <= std::fabs(f.data()[i]) / 256);
  }
}
