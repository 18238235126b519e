#include "heed/model/average.h"

#include <algorithm>
#include <map>

#include "heed/common/error.h"
#include "heed/model/seq2seq.h"
#include "heed/model/serialize.h"

namespace heed::model {
namespace {

bool is_parameter(const std::string& name) {
  return name.rfind("encoder/", 0) == 0 || name.rfind("decoder/", 0) == 0 ||
         name.rfind("bridge/", 0) == 0;
}

// A parameter's values in a file, and its shape (a checkpoint keeps its moving average flat).
struct Weight {
  const io::StoredTensor* values;
  std::vector<int64_t> shape;
};

// The weights a file contributes, by parameter name: a checkpoint's moving average when it keeps
// one (moving_average is then set), else its parameters.
std::map<std::string, Weight> weights_of(ModelFile& file, const std::string& path) {
  std::map<std::string, Weight> weights;
  const std::string prefix = kMovingAveragePrefix;
  for (const io::StoredTensor& t : file.tensors.tensors()) {
    const std::string name = t.name.substr(std::min(t.name.size(), prefix.size()));
    if (t.name.rfind(prefix, 0) != 0 || !is_parameter(name)) continue;
    if (!file.tensors.has(name) || file.tensors.get(name).numel() != t.numel()) {
      throw FormatError(path + ": tensor '" + t.name + "' does not match '" + name + "'");
    }
    weights[name] = {&t, file.tensors.get(name).shape};
  }
  if (!weights.empty()) {
    file.moving_average = true;
    return weights;
  }
  for (const io::StoredTensor& t : file.tensors.tensors()) {
    if (is_parameter(t.name)) weights[t.name] = {&t, t.shape};
  }
  return weights;
}

const char* weights_kind(const ModelFile& file) {
  return file.moving_average ? "a moving average of the weights (--exponential-smoothing)"
                             : "live weights";
}

}  // namespace

ModelFile average_models(const std::vector<std::string>& paths) {
  if (paths.empty()) throw ConfigError("no models to average");
  ModelFile first = load_model(paths[0]);
  const std::map<std::string, Weight> first_weights = weights_of(first, paths[0]);
  // Sums in double: twenty f32 models add without losing the low bits of the mean.
  std::map<std::string, std::vector<double>> sums;
  auto add = [&sums](const std::string& name, const io::StoredTensor& t) {
    const std::vector<float> values = t.as_f32();
    std::vector<double>& sum = sums[name];
    sum.resize(values.size(), 0.0);
    for (size_t i = 0; i < values.size(); ++i) sum[i] += double(values[i]);
  };
  for (const auto& [name, w] : first_weights) add(name, *w.values);
  const std::string config = first.config.to_json();
  for (size_t f = 1; f < paths.size(); ++f) {
    ModelFile other = load_model(paths[f]);
    const std::map<std::string, Weight> weights = weights_of(other, paths[f]);
    const std::string against = " (against " + paths[0] + ")";
    if (other.config.to_json() != config) {
      throw FormatError(paths[f] + ": another architecture" + against + ": " +
                        other.config.summary());
    }
    if (!(other.src_vocab == first.src_vocab) || !(other.tgt_vocab == first.tgt_vocab)) {
      throw FormatError(paths[f] + ": other vocabularies" + against);
    }
    if (other.moving_average != first.moving_average) {
      throw FormatError(paths[f] + " holds " + weights_kind(other) + ", " + paths[0] + " " +
                        weights_kind(first) +
                        ": average like with like (the models of a run "
                        "with smoothing, or a checkpoint of one, hold its moving average)");
    }
    size_t seen = 0;
    for (const auto& [name, w] : weights) {
      if (!sums.count(name)) {
        throw FormatError(paths[f] + ": parameter '" + name + "' is not in the first model" +
                          against);
      }
      if (w.shape != first_weights.at(name).shape) {
        throw FormatError(paths[f] + ": parameter '" + name + "' has another shape" + against);
      }
      add(name, *w.values);
      ++seen;
    }
    if (seen != sums.size()) {
      throw FormatError(paths[f] + ": lacks parameters of the first model" + against);
    }
  }
  ModelFile mean;
  mean.config = first.config;
  mean.src_vocab = first.src_vocab;
  mean.tgt_vocab = first.tgt_vocab;
  mean.extra = first.extra;
  mean.extra.erase("train_state");
  mean.moving_average = first.moving_average;
  // Written in the model's own parameter order, as heed-train writes it: the mean of one model
  // with itself is that model, byte for byte.
  const double n = double(paths.size());
  check_architecture(first.config, first.tensors, paths[0]);
  Seq2Seq model(first.config);
  for (layers::Parameter* p : model.parameters().all()) {
    const auto found = sums.find(p->name);
    if (found == sums.end())
      throw FormatError(paths[0] + ": parameter '" + p->name + "' is missing");
    const tensor::Shape& shape = p->value.shape();
    if (first_weights.at(p->name).shape != std::vector<int64_t>(shape.begin(), shape.end())) {
      throw FormatError(paths[0] + ": parameter '" + p->name + "' has the wrong shape");
    }
    float* value = p->value.data();
    for (size_t i = 0; i < found->second.size(); ++i) value[i] = float(found->second[i] / n);
  }
  if (sums.size() != model.parameters().size()) {
    read_parameters(first.tensors, paths[0], model.parameters());  // names the unknown one
  }
  write_parameters(model.parameters(), mean.tensors);
  return mean;
}

}  // namespace heed::model
