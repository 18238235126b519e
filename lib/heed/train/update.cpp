#include "heed/train/update.h"

#include <algorithm>
#include <cmath>

#include "heed/common/profile.h"

namespace heed::train {

UpdateResult update(model::Seq2Seq& model, Optimizer& optimizer,
                    const std::vector<ParamRef>& params, const model::Batch* shard,
                    const model::LossOptions& options, double clip_norm, float lr, Rng& rng,
                    Communicator& world) {
  {
    profile::Scope phase(profile::Phase::kOptimizer);
    model.parameters().zero_grad();
  }
  UpdateResult result;
  if (shard) result.sums = model.loss(*shard, options, rng);
  result.sums = world.sum_gradients(params, result.sums);
  result.loss = result.sums.loss / double(std::max<int64_t>(result.sums.tokens, 1));
  profile::Scope phase(profile::Phase::kOptimizer);
  result.grad_norm = global_norm(params);
  if (!std::isfinite(result.loss) || !std::isfinite(result.grad_norm)) return result;
  optimizer.step(params, lr, clip_coefficient(result.grad_norm, clip_norm));
  model.weights_changed();
  result.applied = true;
  return result;
}

UpdateResult update(model::Seq2Seq& model, Optimizer& optimizer,
                    const std::vector<ParamRef>& params, const model::Batch& batch,
                    const model::LossOptions& options, double clip_norm, float lr, Rng& rng) {
  Communicator one_process;
  return update(model, optimizer, params, &batch, options, clip_norm, lr, rng, one_process);
}

}  // namespace heed::train
