// Inverted dropout: in training, each value is kept with probability 1 − p and scaled by
// 1 / (1 − p), so inference is the identity. With a unit of U, runs of U consecutive values share
// one draw: whole rows are dropped, e.g. whole words of an embedded sequence [T, N, E] with
// U = E (Marian's --dropout-src/--dropout-trg). The mask of the last forward is kept for
// backward. Masks come from a fast generator seeded from the caller's Rng, so a run is
// reproducible from its seed (and a resumed run from the restored Rng).
#pragma once

#include <cstdint>
#include <vector>

#include "heed/common/rng.h"
#include "heed/tensor/tensor.h"

namespace heed::layers {

class Dropout {
 public:
  // p in [0, 1) and unit ≥ 1; ConfigError otherwise.
  explicit Dropout(float p = 0.f, int64_t unit = 1);

  float probability() const { return p_; }
  // x → x in place with a fresh mask drawn from rng; the identity when rng is null (inference)
  // or p = 0 (and then rng is not drawn from). x's size must be a multiple of the unit.
  void forward(tensor::Tensor& x, Rng* rng);
  // dx in place: multiplied by the mask of the last training forward (identity otherwise).
  void backward(tensor::Tensor& dx) const;

 private:
  float p_;
  int64_t unit_;
  bool active_ = false;      // last forward applied a mask
  std::vector<float> mask_;  // 0 or 1/(1−p), one per unit
};

}  // namespace heed::layers
