// Shape: the dimensions of a row-major tensor, a small fixed-capacity vector of int64.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace heed::tensor {

class Shape {
 public:
  static constexpr int kMaxRank = 6;

  Shape() = default;
  // Throws InternalError for more than kMaxRank dims or a negative dim.
  Shape(std::initializer_list<int64_t> dims);
  explicit Shape(const std::vector<int64_t>& dims);

  int rank() const { return rank_; }
  int64_t operator[](int axis) const { return dims_[static_cast<size_t>(axis)]; }
  // Dim counted from the end for negative axes (-1 = last); checked.
  int64_t dim(int axis) const;
  int64_t back() const { return dim(-1); }
  // Product of all dims (1 for rank 0).
  int64_t numel() const;
  // Row-major element stride of an axis.
  int64_t stride(int axis) const;

  const int64_t* begin() const { return dims_.data(); }
  const int64_t* end() const { return dims_.data() + rank_; }
  std::vector<int64_t> to_vector() const { return {begin(), end()}; }

  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }

  // "[2, 3, 4]".
  std::string to_string() const;

 private:
  void push(int64_t dim);

  std::array<int64_t, kMaxRank> dims_{};
  int rank_ = 0;
};

}  // namespace heed::tensor
