// ParameterStore: the model's f32 master parameters and their gradients, by slash-scoped names
// ("decoder/attention/weight", docs/attention.md). Layers and attention mechanisms add what they
// own when they are built; optimizers, initialisers and model files walk the store in creation
// order. Parameters never move once added (layers keep pointers to them).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "heed/tensor/tensor.h"

namespace heed::layers {

struct Parameter {
  std::string name;
  tensor::Tensor value;  // f32, zero until initialised or loaded
  tensor::Tensor grad;   // f32, same shape; gradients accumulate here (empty in a store
                         // without gradients)
  // Where the method it comes from starts at a fixed value (a learned scale at 1, a bias at 0):
  // the model's initialiser sets every element to it instead of drawing them uniformly.
  std::optional<float> initial_value;
  // A square matrix that starts as the identity (general's --identity-init 1): the initialiser
  // sets it to I instead of drawing it (its draws are still made, as for initial_value).
  bool initial_identity = false;
};

// At most max_values values in a store (0 = no limit), checked before each parameter is
// allocated: a model too large for the machine is refused while what is allocated is still a
// fraction of the limit. why starts the refusal's message.
struct ParameterLimit {
  int64_t max_values = 0;
  std::string why;
};

class ParameterStore {
 public:
  // A store without gradients (a model that only decodes) allocates none: the gradients
  // of a model are as large as its weights, and zeroed they would be resident.
  explicit ParameterStore(bool with_gradients = true) : with_gradients_(with_gradients) {}
  ParameterStore(const ParameterStore&) = delete;
  ParameterStore& operator=(const ParameterStore&) = delete;

  // Adds a zero parameter (and zero gradient, in a store with gradients). Throws InternalError
  // for a duplicate name or an empty shape, and ConfigError when it would take the store past
  // its limit.
  Parameter& add(const std::string& name, const tensor::Shape& shape);
  void limit(ParameterLimit limit) { limit_ = std::move(limit); }
  // Throws InternalError for an unknown name.
  Parameter& get(const std::string& name);
  const Parameter& get(const std::string& name) const;
  // Null when absent.
  Parameter* find(const std::string& name);
  const Parameter* find(const std::string& name) const;

  // In creation order.
  const std::vector<Parameter*>& all() const { return order_; }
  size_t size() const { return order_.size(); }
  // Total number of values.
  int64_t numel() const;
  bool has_gradients() const { return with_gradients_; }
  void zero_grad();

 private:
  std::vector<std::unique_ptr<Parameter>> owned_;
  std::vector<Parameter*> order_;
  std::map<std::string, Parameter*> by_name_;
  int64_t values_ = 0;
  ParameterLimit limit_;
  bool with_gradients_ = true;
};

}  // namespace heed::layers
