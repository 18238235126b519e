// Checks shared by the two model fuzz targets: what a safetensors container and a loaded model
// file promise once the readers have accepted them.
#pragma once

#include <string>

#include "fuzz_support.h"
#include "heed/io/safetensors.h"
#include "heed/model/model_file.h"
#include "heed/model/serialize.h"
#include "heed/onednn/context.h"

namespace heed::fuzz {

// Every tensor's bytes match its shape and type, and serialize() parses back to the same
// container.
inline void check_container(const io::SafeTensors& parsed) {
  for (const auto& t : parsed.tensors()) {
    if (t.numel() < 0 ||
        static_cast<size_t>(t.numel()) * io::stored_type_size(t.type) != t.bytes.size()) {
      fuzz_fail("tensor '" + t.name + "': bytes do not match its shape");
    }
    if (t.type == io::StoredType::kF32) (void)t.as_f32();
    if (t.type == io::StoredType::kI32) (void)t.as_i32();
  }
  const io::SafeTensors back = io::SafeTensors::parse(parsed.serialize(), "serialize()");
  if (back.metadata() != parsed.metadata() || back.tensors().size() != parsed.tensors().size()) {
    fuzz_fail("parse(serialize(x)) lost metadata or tensors");
  }
  for (size_t i = 0; i < back.tensors().size(); ++i) {
    const auto& a = back.tensors()[i];
    const auto& b = parsed.get(a.name);
    if (a.type != b.type || a.shape != b.shape || a.bytes != b.bytes) {
      fuzz_fail("parse(serialize(x)) changed tensor '" + a.name + "'");
    }
  }
  if (back.data_checksum() != parsed.data_checksum()) fuzz_fail("checksum changed by serialize()");
}

// A loaded model file is consistent, and (when small enough to build quickly) becomes a
// network or is refused with a heed::Error naming what does not fit.
inline void check_model(const model::ModelFile& file, const std::string& path) {
  const model::ModelConfig& c = file.config;
  if (file.src_vocab.size() != c.src_vocab_size || file.tgt_vocab.size() != c.tgt_vocab_size) {
    fuzz_fail("load_model accepted vocabularies that do not match the config");
  }
  // check_architecture compares the config's sizes with the tensors before anything is allocated,
  // so any config the reader accepts may be built: a crafted one is refused, not believed.
  static const bool one_thread = (onednn::set_threads(1), true);
  (void)one_thread;
  refuses_cleanly([&] { (void)model::load_seq2seq(file, path, onednn::Precision::kF32); });
}

}  // namespace heed::fuzz
