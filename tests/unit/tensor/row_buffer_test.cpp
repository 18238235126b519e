#include "heed/tensor/row_buffer.h"

#include <catch2/catch.hpp>
#include <vector>

#include "heed/common/error.h"

using heed::tensor::DType;
using heed::tensor::RowBuffer;
using heed::tensor::Shape;

TEST_CASE("row buffer: rows appended over calls are read as one matrix, kept through growth",
          "[tensor][fast]") {
  RowBuffer buffer;
  CHECK_THROWS_AS(buffer.append(1), heed::InternalError);
  buffer.reset(3);
  CHECK(buffer.view().shape() == Shape({0, 3}));
  const std::vector<float> first = {1, 2, 3, 4, 5, 6};
  buffer.append(first.data(), 2);
  // Growth moves the rows kept so far along.
  for (int i = 0; i < 5; ++i) {
    float* row = static_cast<float*>(buffer.append(1));
    for (int j = 0; j < 3; ++j) row[j] = float(10 * i + j);
  }
  CHECK(buffer.rows() == 7);
  const heed::tensor::Tensor all = buffer.view();
  REQUIRE(all.shape() == Shape({7, 3}));
  const std::vector<float> values = all.to_vector();
  CHECK(std::vector<float>(values.begin(), values.begin() + 6) == first);
  CHECK(values[6] == 0.f);
  CHECK(values[20] == 42.f);

  // clear() forgets the rows but keeps the room: no new allocation for as many rows again.
  const void* before = buffer.view().raw();
  buffer.clear();
  CHECK(buffer.rows() == 0);
  buffer.append(7);
  CHECK(buffer.view().raw() == before);

  // Another width or type starts afresh.
  buffer.reset(2, DType::kBF16);
  CHECK(buffer.rows() == 0);
  buffer.append(4);
  CHECK(buffer.view().shape() == Shape({4, 2}));
  CHECK(buffer.view().dtype() == DType::kBF16);
  CHECK_THROWS_AS(buffer.reset(0), heed::InternalError);
}
