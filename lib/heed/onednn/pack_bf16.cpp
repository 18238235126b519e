// BA16a64b2a packing (pack_bf16.h): plain loops over a block, compiled for AVX-512 and the
// baseline (common/cpu_dispatch.h); GCC vectorises the pairs of rows (a row-major source) and the
// pairs within a row (a transposed one).
#include "heed/onednn/pack_bf16.h"

#include <cstring>

#include "heed/common/cpu_dispatch.h"

namespace heed::onednn::detail {

namespace {

constexpr int64_t kBlockRows = 32, kBlockCols = 64, kBlock = kBlockRows * kBlockCols;

// float → bf16, nearest, ties to even; a NaN stays a quiet NaN (tensor::float_to_bf16's rule).
HEED_INLINE uint32_t bf16_bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return (bits & 0x7fffffffu) > 0x7f800000u ? (bits >> 16) | 0x0040u
                                            : (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
}

// One 32 × 64 block, as 16 × 64 pairs: out[p · 64 + j] holds rows 2p and 2p + 1 of column j.
HEED_INLINE void pack_block(const float* src, int64_t rows, int64_t cols, int64_t row_stride,
                            int64_t col_stride, int64_t k_block, int64_t n_block, uint32_t* out) {
  const int64_t k0 = k_block * kBlockRows, n0 = n_block * kBlockCols;
  const bool whole = k0 + kBlockRows <= rows && n0 + kBlockCols <= cols;
  if (whole && col_stride == 1) {
    for (int64_t p = 0; p < kBlockRows / 2; ++p) {
      const float* even = src + (k0 + 2 * p) * row_stride + n0;
      const float* odd = even + row_stride;
      uint32_t* to = out + p * kBlockCols;
      for (int64_t j = 0; j < kBlockCols; ++j) to[j] = bf16_bits(even[j]) | bf16_bits(odd[j]) << 16;
    }
  } else if (whole && row_stride == 1) {
    for (int64_t j = 0; j < kBlockCols; ++j) {
      const float* column = src + (n0 + j) * col_stride + k0;
      for (int64_t p = 0; p < kBlockRows / 2; ++p) {
        out[p * kBlockCols + j] = bf16_bits(column[2 * p]) | bf16_bits(column[2 * p + 1]) << 16;
      }
    }
  } else {
    for (int64_t p = 0; p < kBlockRows / 2; ++p) {
      for (int64_t j = 0; j < kBlockCols; ++j) {
        const int64_t k = k0 + 2 * p, n = n0 + j;
        uint32_t pair = 0;
        if (n < cols && k < rows) pair = bf16_bits(src[k * row_stride + n * col_stride]);
        if (n < cols && k + 1 < rows) {
          pair |= bf16_bits(src[(k + 1) * row_stride + n * col_stride]) << 16;
        }
        out[p * kBlockCols + j] = pair;
      }
    }
  }
}

#define HEED_PACK_VARIANT(NAME, TARGET)                                                     \
  TARGET void pack_##NAME(const float* src, int64_t rows, int64_t cols, int64_t row_stride, \
                          int64_t col_stride, uint16_t* dst) {                              \
    const int64_t k_blocks = (rows + kBlockRows - 1) / kBlockRows;                          \
    const int64_t blocks = k_blocks * ((cols + kBlockCols - 1) / kBlockCols);               \
    _Pragma("omp parallel for schedule(static)") for (int64_t b = 0; b < blocks; ++b) {     \
      pack_block(src, rows, cols, row_stride, col_stride, b % k_blocks, b / k_blocks,       \
                 reinterpret_cast<uint32_t*>(dst) + b * (kBlock / 2));                      \
    }                                                                                       \
  }

HEED_PACK_VARIANT(avx512, HEED_TARGET_AVX512)
HEED_PACK_VARIANT(baseline, )

#undef HEED_PACK_VARIANT

}  // namespace

void pack_ba16a64b2a(const float* src, int64_t rows, int64_t cols, int64_t row_stride,
                     int64_t col_stride, uint16_t* dst) {
  if (cpu_level() == kAvx512) {
    pack_avx512(src, rows, cols, row_stride, col_stride, dst);
  } else {
    pack_baseline(src, rows, cols, row_stride, col_stride, dst);
  }
}

}  // namespace heed::onednn::detail
