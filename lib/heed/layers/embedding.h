// Embedding lookup. Token ids arrive batch-major ([N, T], as the batcher pads them) and the
// vectors leave time-major ([T, N, E], as the RNNs read them): the transpose is free here.
#pragma once

#include <cstdint>

#include "heed/tensor/tensor.h"

namespace heed::layers {

// out[t, n, :] = weight[ids[n·T + t], :]. weight [V, E], out resized to [T, N, E]. Ids outside
// [0, V) throw InternalError (vocabularies map unknown words to <unk> before this).
void embedding_forward(const tensor::Tensor& weight, const int32_t* ids, int64_t n, int64_t t,
                       tensor::Tensor& out);
// d_weight[ids[n·T + t], :] += d_out[t, n, :] for positions t < lengths[n] (padding gets no
// gradient); lengths may be null (all T).
void embedding_backward(const tensor::Tensor& d_out, const int32_t* ids, const int64_t* lengths,
                        int64_t n, int64_t t, tensor::Tensor& d_weight);

}  // namespace heed::layers
