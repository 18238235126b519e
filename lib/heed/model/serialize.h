// Parameters ⇄ safetensors tensors, by name. Used for model files and checkpoints.
#pragma once

#include <memory>
#include <string>

#include "heed/io/safetensors.h"
#include "heed/layers/parameters.h"
#include "heed/model/model_file.h"
#include "heed/model/seq2seq.h"

namespace heed::model {

// Adds every parameter's value as an F32 tensor of the same name and shape.
void write_parameters(const layers::ParameterStore& store, io::SafeTensors& out);
// Same with prefix + name, for the gradients or optimizer moments in checkpoints.
void write_tensors(const layers::ParameterStore& store, bool gradients, const std::string& prefix,
                   io::SafeTensors& out);
// Copies each parameter's value from the tensor of its name. FormatError naming `source` if a
// parameter is missing, has another shape or type, or the file holds a tensor the model does
// not know (a model from another architecture).
void read_parameters(const io::SafeTensors& in, const std::string& source,
                     layers::ParameterStore& store);

// Compares the sizes a config declares (vocabularies, embedding and hidden widths, the number of
// encoder and decoder layers) with the tensors of the file, before a network is built from the
// config: a crafted config (a million layers, a hidden size of 10⁹) would otherwise allocate
// what it claims before read_parameters compares (7.9 GB, then bad_alloc; issue 29). FormatError
// naming source and the field.
void check_architecture(const model::ModelConfig& config, const io::SafeTensors& tensors,
                        const std::string& source);

// A model ready for inference (ModelUse::kInference: no gradients) from a loaded model file
// (source: the path, for messages); check_architecture first.
std::unique_ptr<Seq2Seq> load_seq2seq(const model::ModelFile& file, const std::string& source,
                                      onednn::Precision precision);

}  // namespace heed::model
