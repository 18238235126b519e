// A small, valid model file (config, vocabularies, one tensor, BPE codes) for the tests of the
// model-file format and of what reads it.
#pragma once

#include "heed/model/model_file.h"

namespace heed::test {

inline model::ModelFile tiny_model_file() {
  model::ModelFile m;
  m.src_vocab = text::Vocab::from_counts(text::CountList{{"hallo", 3}, {"welt", 2}});
  m.tgt_vocab = text::Vocab::from_counts(text::CountList{{"hello", 3}});
  m.config.embed = 4;
  m.config.hidden = 6;
  m.config.src_vocab_size = m.src_vocab.size();
  m.config.tgt_vocab_size = m.tgt_vocab.size();
  m.config.validate();
  const float w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  m.tensors.add_f32("decoder/output/bias", {8}, w);
  m.extra["bpe_codes"] = "#version: 0.2\na b\n";
  return m;
}

}  // namespace heed::test
