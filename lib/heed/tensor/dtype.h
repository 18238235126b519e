// Element types: float32 for everything, bfloat16 (stored as uint16) for scratch copies that
// feed oneDNN's bf16 kernels. Conversions round to nearest even, like oneDNN's reorders.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace heed::tensor {

enum class DType { kF32, kBF16 };

constexpr size_t dtype_size(DType dtype) {
  return dtype == DType::kF32 ? 4 : 2;
}
// "f32" or "bf16".
const char* dtype_name(DType dtype);

// float → bfloat16, round to nearest even; NaN stays a (quiet) NaN, overflow gives ±inf.
inline uint16_t float_to_bf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

// bfloat16 → float, exact.
inline float bf16_to_float(uint16_t value) {
  const uint32_t bits = static_cast<uint32_t>(value) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Array versions (plain loops; onednn::convert() is the threaded one for large buffers).
void float_to_bf16(const float* src, uint16_t* dst, int64_t n);
void bf16_to_float(const uint16_t* src, float* dst, int64_t n);

}  // namespace heed::tensor
