// An f32 weight matrix packed into the bf16 layout oneDNN 2.6's matmul asks for on AVX-512 BF16
// CPUs, BA16a64b2a, by heed's own loop: oneDNN's reorder to it ran at 3.5 GB/s (4,371 × 512
// from rows: 2.6 ms on a Zen 4; bench/train_primitives.sh), and every weight is packed again
// after each optimizer step, once or twice (a product and its backward want different sides).
// MatMul uses it for a constant B whose packed layout is exactly this one (its weights memory
// descriptor equals BA16a64b2a's for the same dims), oneDNN's reorder for any other.
//
// BA16a64b2a of a K × N matrix (a = K, b = N): blocks of 32 rows by 64 columns, the column
// blocks outermost, each block 16 pairs of rows by 64 columns by the pair, padded with zeros
// to whole blocks: element (k, n) is at
//   ((n / 64) · ⌈K / 32⌉ + k / 32) · 2048 + ((k % 32) / 2) · 128 + (n % 64) · 2 + k % 2.
#pragma once

#include <cstdint>

namespace heed::onednn::detail {

// Writes the rows × cols f32 matrix whose element (k, n) is src[k · row_stride + n ·
// col_stride] to dst in BA16a64b2a (2 · ⌈rows / 32⌉ · 32 · ⌈cols / 64⌉ · 64 bytes, the
// padding included), each value rounded to the nearest bf16, ties to even, as oneDNN's reorder.
// Threaded (OpenMP) over blocks.
void pack_ba16a64b2a(const float* src, int64_t rows, int64_t cols, int64_t row_stride,
                     int64_t col_stride, uint16_t* dst);

}  // namespace heed::onednn::detail
