#include "heed/layers/parameters.h"

#include "heed/common/error.h"

namespace heed::layers {

Parameter& ParameterStore::add(const std::string& name, const tensor::Shape& shape) {
  if (by_name_.count(name)) throw InternalError("parameter '" + name + "' added twice");
  if (shape.numel() <= 0) throw InternalError("parameter '" + name + "' has no values");
  if (limit_.max_values > 0 && shape.numel() > limit_.max_values - values_) {
    throw ConfigError(limit_.why + " (passed at '" + name + "', " + shape.to_string() + ")");
  }
  auto param = std::make_unique<Parameter>();
  param->name = name;
  param->value = tensor::Tensor(shape);
  if (with_gradients_) param->grad = tensor::Tensor(shape);
  Parameter* raw = param.get();
  owned_.push_back(std::move(param));
  order_.push_back(raw);
  by_name_[name] = raw;
  values_ += shape.numel();
  return *raw;
}

Parameter* ParameterStore::find(const std::string& name) {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

const Parameter* ParameterStore::find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

Parameter& ParameterStore::get(const std::string& name) {
  Parameter* p = find(name);
  if (!p) throw InternalError("no parameter '" + name + "'");
  return *p;
}

const Parameter& ParameterStore::get(const std::string& name) const {
  const Parameter* p = find(name);
  if (!p) throw InternalError("no parameter '" + name + "'");
  return *p;
}

int64_t ParameterStore::numel() const {
  int64_t n = 0;
  for (const Parameter* p : order_) n += p->value.numel();
  return n;
}

void ParameterStore::zero_grad() {
  // Every thread clears a part of each gradient: cleared by one (a memset), the others waited
  // for it, 2 % of a bf16 update's samples (perf on heed-train, Multi30k, 2 threads).
#pragma omp parallel
  for (Parameter* p : order_) {
    float* grad = p->grad.data();
    const int64_t n = p->grad.numel();
#pragma omp for simd schedule(static) nowait
    for (int64_t i = 0; i < n; ++i) grad[i] = 0.0f;
  }
}

}  // namespace heed::layers
