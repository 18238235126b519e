// Batched matrix products on oneDNN's matmul: C (=|+=) A·B with optional bias, per-row addend
// (attention masks), output scale and tanh, over dense or strided views (no transposes or copies
// for time-major encoder states, docs/onednn.md §5). One MatMul object caches one primitive per
// operand shape/stride combination and reuses it, with no allocation per call.
#pragma once

#include <cstdint>
#include <memory>

#include "heed/onednn/precision.h"
#include "heed/tensor/tensor.h"

namespace heed::onednn {

// A matrix, or a batch of matrices, inside a buffer: element (b, r, c) lives at
// data + b·batch_stride + r·row_stride + c·col_stride (in elements of dtype). Constness is
// shallow, as for Tensor: a MatrixRef of a const Tensor may be written as an output.
struct MatrixRef {
  void* data = nullptr;
  tensor::DType dtype = tensor::DType::kF32;
  int64_t batch = 1;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t batch_stride = 0;
  int64_t row_stride = 0;
  int64_t col_stride = 1;

  // Rank 2 [R, C] → one matrix; rank 3 [B, R, C] → B matrices.
  static MatrixRef of(const tensor::Tensor& t);
  // [..., C] → one matrix [numel / C, C] (leading dims folded into rows).
  static MatrixRef rows_of(const tensor::Tensor& t);
  // Time-major [T, N, C] → N matrices [T, C] (row stride N·C): encoder states as values V.
  // time_major(enc).transposed() is Kᵀ, N matrices [C, T].
  static MatrixRef time_major(const tensor::Tensor& t);

  // Rows and columns swapped (a view, no copy).
  MatrixRef transposed() const;
};

enum class Activation { kNone, kTanh };

struct MatMulOptions {
  bool accumulate = false;  // C = A·B + C (oneDNN sum post-op) instead of C = A·B
  float alpha = 1.f;        // scale of A·B; only without bias
  // [cols] f32, added to every row.
  const tensor::Tensor* bias = nullptr;
  // [batch, cols] (or [batch, 1, cols]) f32, added to every row of matrix b: masks (−1e9).
  const tensor::Tensor* addend = nullptr;
  Activation activation = Activation::kNone;  // applied last
  // B is a weight matrix: MatMul reorders it once into the layout (and type) the primitive
  // prefers and reuses that copy until weights_changed() or until B's address changes. Plans
  // for different A shapes (row counts) share the copy when they want the same layout. Use one
  // MatMul per weight matrix: alternating two matrices would repack on every call.
  bool constant_b = false;
};

class MatMul {
 public:
  // kBF16: f32 operands A and B are converted to bf16 (into scratch owned by this MatMul;
  // a constant B once per weights_changed()), bf16 operands are used as they are; C may be f32
  // or bf16. kF32: all operands f32. Throws ConfigError if bf16 is unsupported here.
  explicit MatMul(Precision precision = Precision::kF32);
  ~MatMul();
  MatMul(MatMul&&) noexcept;
  MatMul& operator=(MatMul&&) noexcept;

  // c = a·b per options. a: batch × [M, K]; b: batch (or 1, broadcast) × [K, N];
  // c: batch × [M, N]. Shape mismatches throw InternalError, oneDNN failures BackendError.
  void run(const MatrixRef& a, const MatrixRef& b, const MatrixRef& c,
           const MatMulOptions& options = {});

  // The weights behind constant B operands changed (after an optimizer step).
  void weights_changed();

  Precision precision() const;
  // Number of cached primitives (one per distinct shape/stride/option combination; at most a
  // bound, the least recently used going first).
  size_t plan_count() const;
  // Packed copies of constant B operands made so far (a weight used with many row counts is
  // packed once per layout and weights_changed(), not once per row count).
  size_t packs_made() const;
  // Packed copies held now (at most a bound; two after weights_changed(), their buffers kept
  // for reuse).
  size_t packed_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace heed::onednn
