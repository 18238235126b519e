// Leaky ReLU, y = x for x > 0 and slope·x otherwise (the "leaky rectifier" of Raffel & Ellis
// 2015; slope 0.01 as Lasagne's default). oneDNN's matmul post-ops offer only tanh in our
// wrapper, and the long-term-memory experiment is the only user, so it lives here.
#pragma once

#include <cstdint>

namespace heed::pooling {

inline constexpr float kLeakySlope = 0.01f;

// y[i] = leaky(x[i]); y may alias x.
void leaky_relu(const float* x, float* y, int64_t n, float slope = kLeakySlope);
// dx[i] = dy[i] · leaky'(x[i]); dx may alias dy. x may as well be the output y, which has the
// pre-activation's sign: the activation can then be computed in place.
void leaky_relu_backward(const float* x, const float* dy, float* dx, int64_t n,
                         float slope = kLeakySlope);

}  // namespace heed::pooling
