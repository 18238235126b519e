#include "heed/model/serialize.h"

#include <cstring>

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
      const std::vector<float> values = stored.as_f32();  // throws, naming the tensor
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

std::unique_ptr<Seq2Seq> load_seq2seq(const model::ModelFile& file, const std::string& source,
                                      onednn::Precision precision) {
  auto model = std::make_unique<Seq2Seq>(file.config, precision);
  read_parameters(file.tensors, source, model->parameters());
  model->weights_changed();
  return model;
}

}  // namespace heed::model
