#include "heed/model/serialize.h"

#include <algorithm>
#include <cstring>

#include "heed/common/check.h"
#include "heed/common/error.h"

namespace heed::model {

namespace {

std::vector<int64_t> dims(const tensor::Shape& shape) {
  std::vector<int64_t> d;
  for (int i = 0; i < shape.rank(); ++i) d.push_back(shape.dim(i));
  return d;
}

std::string shape_text(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

}  // namespace

void write_parameters(const layers::ParameterStore& store, io::SafeTensors& out) {
  write_tensors(store, false, "", out);
}

void write_tensors(const layers::ParameterStore& store, bool gradients, const std::string& prefix,
                   io::SafeTensors& out) {
  HEED_CHECK(!gradients || store.has_gradients(), "the gradients of a model built to decode");
  for (const layers::Parameter* p : store.all()) {
    const tensor::Tensor& t = gradients ? p->grad : p->value;
    out.add_f32(prefix + p->name, dims(t.shape()), t.data());
  }
}

void read_parameters(const io::SafeTensors& in, const std::string& source,
                     layers::ParameterStore& store) {
  for (layers::Parameter* p : store.all()) {
    if (!in.has(p->name)) {
      throw FormatError(source + ": parameter '" + p->name + "' is missing");
    }
    const io::StoredTensor& stored = in.get(p->name);
    const std::vector<int64_t> want = dims(p->value.shape());
    if (stored.shape != want) {
      throw FormatError(source + ": parameter '" + p->name + "' has shape " +
                        shape_text(stored.shape) + ", the model expects " + shape_text(want));
    }
    if (stored.type == io::StoredType::kF32) {
      std::memcpy(p->value.data(), stored.bytes.data(), stored.bytes.size());
    } else {
      std::vector<float> values;
      try {
        values = stored.as_f32();
      } catch (const FormatError& e) {
        throw FormatError(source + ": " + e.what());  // the tensor named, and now the file
      }
      std::memcpy(p->value.data(), values.data(), values.size() * sizeof(float));
    }
  }
  for (const io::StoredTensor& t : in.tensors()) {
    const bool model_name = t.name.rfind("encoder/", 0) == 0 || t.name.rfind("decoder/", 0) == 0 ||
                            t.name.rfind("bridge/", 0) == 0;
    if (model_name && !store.find(t.name)) {
      throw FormatError(source + ": unknown parameter '" + t.name + "' for this architecture");
    }
  }
}

void check_architecture(const model::ModelConfig& config, const io::SafeTensors& tensors,
                        const std::string& source) {
  auto expect = [&](const std::string& name, const std::vector<int64_t>& want, const char* fields) {
    if (!tensors.has(name)) {
      throw FormatError(source + ": parameter '" + name + "' is missing (the config describes " +
                        config.summary() + ")");
    }
    if (tensors.get(name).shape != want) {
      throw FormatError(source + ": parameter '" + name + "' has shape " +
                        shape_text(tensors.get(name).shape) + ", the config (" + fields +
                        ") says " + shape_text(want));
    }
  };
  const int64_t embed = config.embed, hidden = config.hidden;
  expect("encoder/embedding/weight", {config.src_vocab_size, embed}, "src_vocab_size, embed");
  expect("decoder/embedding/weight", {config.tgt_vocab_size, embed}, "tgt_vocab_size, embed");
  const int64_t gates = config.cell == CellType::kLstm ? 4 : 3;
  expect("decoder/rnn_0/weight_hh", {gates * hidden, hidden}, "cell, hidden");
  // The layers: the highest index present must be the config's count minus one.
  auto layers_in_file = [&](const std::string& prefix) {
    int64_t count = 0;
    for (const io::StoredTensor& t : tensors.tensors()) {
      if (t.name.rfind(prefix, 0) != 0) continue;
      const std::string rest = t.name.substr(prefix.size());
      const size_t slash = rest.find('/');
      const std::string digits = rest.substr(0, slash);
      if (digits.empty() || digits.size() > 6 ||
          digits.find_first_not_of("0123456789") != std::string::npos) {
        continue;
      }
      count = std::max<int64_t>(count, std::stoll(digits) + 1);
    }
    return count;
  };
  const int64_t encoder_layers = layers_in_file("encoder/rnn_");
  const int64_t decoder_layers = layers_in_file("decoder/rnn_");
  if (encoder_layers != config.encoder_layers || decoder_layers != config.decoder_layers) {
    throw FormatError(source + ": the config says " + std::to_string(config.encoder_layers) +
                      " encoder and " + std::to_string(config.decoder_layers) +
                      " decoder layers, the file holds " + std::to_string(encoder_layers) +
                      " and " + std::to_string(decoder_layers));
  }
}

std::unique_ptr<Seq2Seq> load_seq2seq(const model::ModelFile& file, const std::string& source,
                                      onednn::Precision precision) {
  check_architecture(file.config, file.tensors, source);
  auto model = std::make_unique<Seq2Seq>(file.config, precision, layers::ParameterLimit{},
                                         ModelUse::kInference);
  read_parameters(file.tensors, source, model->parameters());
  model->weights_changed();
  return model;
}

}  // namespace heed::model
