#include "heed/tensor/shape.h"

#include "heed/common/check.h"

namespace heed::tensor {

Shape::Shape(std::initializer_list<int64_t> dims) {
  for (int64_t d : dims) push(d);
}

Shape::Shape(const std::vector<int64_t>& dims) {
  for (int64_t d : dims) push(d);
}

void Shape::push(int64_t dim) {
  HEED_CHECK(rank_ < kMaxRank, "shape rank above " + std::to_string(kMaxRank));
  HEED_CHECK(dim >= 0, "negative dimension " + std::to_string(dim));
  dims_[static_cast<size_t>(rank_++)] = dim;
}

int64_t Shape::dim(int axis) const {
  const int a = axis < 0 ? axis + rank_ : axis;
  HEED_CHECK(a >= 0 && a < rank_,
             "axis " + std::to_string(axis) + " out of range for " + to_string());
  return dims_[static_cast<size_t>(a)];
}

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int64_t d : *this) n *= d;
  return n;
}

int64_t Shape::stride(int axis) const {
  const int a = axis < 0 ? axis + rank_ : axis;
  HEED_CHECK(a >= 0 && a < rank_,
             "axis " + std::to_string(axis) + " out of range for " + to_string());
  int64_t s = 1;
  for (int i = rank_ - 1; i > a; --i) s *= dims_[static_cast<size_t>(i)];
  return s;
}

bool Shape::operator==(const Shape& other) const {
  if (rank_ != other.rank_) return false;
  for (int i = 0; i < rank_; ++i) {
    if (dims_[static_cast<size_t>(i)] != other.dims_[static_cast<size_t>(i)]) return false;
  }
  return true;
}

std::string Shape::to_string() const {
  std::string s = "[";
  for (int i = 0; i < rank_; ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(dims_[static_cast<size_t>(i)]);
  }
  return s + "]";
}

}  // namespace heed::tensor
