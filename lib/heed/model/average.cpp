#include "heed/model/average.h"

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

}  // namespace

ModelFile average_models(const std::vector<std::string>& paths) {
  if (paths.empty()) throw ConfigError("no models to average");
  ModelFile first = load_model(paths[0]);
  // Sums in double: twenty f32 models add without losing the low bits of the mean.
  std::map<std::string, std::vector<double>> sums;
  auto add = [&sums](const io::StoredTensor& t) {
    const std::vector<float> values = t.as_f32();
    std::vector<double>& sum = sums[t.name];
    sum.resize(values.size(), 0.0);
    for (size_t i = 0; i < values.size(); ++i) sum[i] += double(values[i]);
  };
  for (const io::StoredTensor& t : first.tensors.tensors()) {
    if (is_parameter(t.name)) add(t);
  }
  const std::string config = first.config.to_json();
  for (size_t f = 1; f < paths.size(); ++f) {
    const ModelFile other = load_model(paths[f]);
    const std::string against = " (against " + paths[0] + ")";
    if (other.config.to_json() != config) {
      throw FormatError(paths[f] + ": another architecture" + against + ": " +
                        other.config.summary());
    }
    if (!(other.src_vocab == first.src_vocab) || !(other.tgt_vocab == first.tgt_vocab)) {
      throw FormatError(paths[f] + ": other vocabularies" + against);
    }
    size_t seen = 0;
    for (const io::StoredTensor& t : other.tensors.tensors()) {
      if (!is_parameter(t.name)) continue;
      if (!sums.count(t.name)) {
        throw FormatError(paths[f] + ": parameter '" + t.name + "' is not in the first model" +
                          against);
      }
      if (t.shape != first.tensors.get(t.name).shape) {
        throw FormatError(paths[f] + ": parameter '" + t.name + "' has another shape" + against);
      }
      add(t);
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
    if (first.tensors.get(p->name).shape != std::vector<int64_t>(shape.begin(), shape.end())) {
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
