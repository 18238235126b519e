// Private to lib/heed/attention: the fused score kernel of the additive family,
//   e[b, t, s] = Σ_k v_k · tanh(wq[t, b, k] + p[s, b, k]),
// computed straight from the query side wq = W q [T, N, A] and the key side p = U h + b
// [S, N, A], never forming the [N, T, S, A] pre-activations: the backward recomputes each tanh
// from wq and p (as FlashAttention recomputes its scores), so memory stays O(N·T·S).
//
// Threads: OpenMP, as many as onednn::set_threads() asked for. The forward splits the work by
// (sentence, block of source positions), the backward by sentence, so that every output element
// is written by one task in a fixed order: results do not depend on the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "heed/attention/normalization.h"

namespace heed::attention {

struct AdditiveScoreShape {
  int64_t queries = 0;  // T
  int64_t batch = 0;    // N
  int64_t source = 0;   // S
  int64_t dim = 0;      // A
  // Decoding with a key side shared by a sentence's hypotheses (scored_attention.h): p is
  // [S, key_batch, A] and row b reads its column key_rows[b]. Null: p is [S, N, A], row b reads
  // column b (the backward's only layout).
  const int64_t* key_rows = nullptr;
  int64_t key_batch = 0;
};

// scores [N, T, S]: e inside each row's span (row b·T + t), 0 outside.
void additive_scores(const AdditiveScoreShape& shape, const float* wq, const float* p,
                     const float* v, const std::vector<Span>& spans, float* scores);

// From d_scores [N, T, S] (read inside the spans only): d_wq [T, N, A] is overwritten, d_p
// [S, N, A] and dv [A] are added to.
void additive_scores_backward(const AdditiveScoreShape& shape, const float* wq, const float* p,
                              const float* v, const std::vector<Span>& spans, const float* d_scores,
                              float* d_wq, float* d_p, float* dv);

// The kernel's tanh, one value at a time (for tests): (e^{2|x|} − 1)/(e^{2|x|} + 1) with the
// sign of x, e^{2|x|} − 1 from a polynomial after reduction by powers of 2 (additive_scores.cpp).
float additive_tanh(float x);

// The instruction set the kernel dispatched to on this CPU: "avx512f", "avx2" or "default".
const char* additive_scores_isa();

}  // namespace heed::attention
