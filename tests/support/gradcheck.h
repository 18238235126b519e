// Central finite-difference gradient checks, reused for every layer and attention mechanism.
//
// The caller computes analytic gradients at the current parameters, then passes a loss
// function that recomputes the scalar loss (forward only, accumulated in double; typically a
// fixed random projection of the outputs, see Projection) and the parameters to check. For
// up to max_coords sampled coordinates per tensor, value[i] is nudged by ±eps and the
// numerical derivative (L⁺ − L⁻) / 2eps compared with grad[i]:
//   |numeric − analytic| ≤ atol + rtol · max(|numeric|, |analytic|).
// Points near a kink (the eps and eps/2 estimates disagree beyond the same tolerance) are
// skipped and counted, like ggml's grad checks. Values are restored afterwards.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "heed/common/rng.h"
#include "heed/tensor/tensor.h"

namespace heed::test {

struct GradParam {
  std::string name;
  float* value = nullptr;       // parameter (or input) values, perturbed in place
  const float* grad = nullptr;  // analytic gradient at the unperturbed point
  int64_t size = 0;
};

struct GradCheckOptions {
  double eps = 1e-2;  // step (f32 forwards need a large one)
  double rtol = 1e-2;
  double atol = 1e-3;
  int max_coords = 24;  // sampled coordinates per tensor (all if the tensor is smaller)
  uint64_t seed = 7;    // coordinate sampling
  bool skip_kinks = true;
};

struct GradCheckResult {
  bool ok = true;
  int checked = 0;
  int skipped = 0;
  double max_abs_error = 0;
  std::string report;  // one line per failed coordinate: "name[i]: numeric x analytic y"
};

GradCheckResult gradcheck(const std::function<double()>& loss, const std::vector<GradParam>& params,
                          const GradCheckOptions& options = {});

// Convenience: a GradParam over a tensor and its gradient tensor (same numel).
GradParam grad_param(const std::string& name, tensor::Tensor& value, const tensor::Tensor& grad);

// Uniform values in [lo, hi).
void fill_uniform(tensor::Tensor& t, Rng& rng, float lo = -1.f, float hi = 1.f);
tensor::Tensor random_tensor(const tensor::Shape& shape, Rng& rng, float lo = -1.f, float hi = 1.f);

// A fixed random projection: loss = Σ w_i · y_i in double, whose gradient dL/dy is w itself.
class Projection {
 public:
  Projection(const tensor::Shape& shape, Rng& rng);
  double operator()(const tensor::Tensor& y) const;
  // dL/dy as an f32 tensor.
  const tensor::Tensor& grad() const { return weights_; }

 private:
  tensor::Tensor weights_;
};

}  // namespace heed::test
