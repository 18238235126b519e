// heed_reference_case: writes one parity case for tests/reference/reference_model.py — a model
// file with random weights, a random batch of sentences of different lengths, and heed's loss
// and gradients on it — so that the PyTorch reference can recompute them independently.
//
//   heed_reference_case OUT_DIR [key=value ...]
//   heed_reference_case --attention-names [sparsemax]   (the registry, one per line; with
//                                                         sparsemax those with a normaliser)
// keys: attention decoder input_feeding cell bidirectional encoder_layers decoder_layers bridge
//       normalizer label_smoothing seed, and opt.NAME for the mechanism's own options
//       (opt.heads=2)
#include <cstdio>
#include <map>
#include <string>

#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/common/rng.h"
#include "heed/model/model_file.h"
#include "heed/model/seq2seq.h"
#include "heed/model/serialize.h"
#include "heed/onednn/context.h"

namespace {

heed::text::Vocab small_vocab(const std::string& prefix, int words) {
  heed::text::CountList counts;
  for (int i = 0; i < words; ++i) counts.emplace_back(prefix + std::to_string(i), 100 - i);
  return heed::text::Vocab::from_counts(counts);
}

int run(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--attention-names") {
    // With "sparsemax": only the mechanisms whose weights come from the shared normaliser.
    const bool normalizing = argc == 3 && std::string(argv[2]) == "sparsemax";
    for (const std::string& name : heed::attention::attention_names()) {
      if (normalizing && !heed::attention::attention_info(name).traits.normalizes) continue;
      std::printf("%s\n", name.c_str());
    }
    return 0;
  }
  if (argc < 2) {
    std::fprintf(stderr, "usage: heed_reference_case OUT_DIR [key=value ...]\n");
    return 64;
  }
  const std::string dir = argv[1];
  std::map<std::string, std::string> opt = {{"attention", "general"},   {"decoder", "luong"},
                                            {"input_feeding", "1"},     {"cell", "lstm"},
                                            {"bidirectional", "1"},     {"encoder_layers", "1"},
                                            {"decoder_layers", "1"},    {"bridge", "dense"},
                                            {"label_smoothing", "0.1"}, {"seed", "1"},
                                            {"normalizer", "softmax"}};
  std::map<std::string, double> attention_options;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (eq != std::string::npos && arg.rfind("opt.", 0) == 0) {
      attention_options[arg.substr(4, eq - 4)] = std::stod(arg.substr(eq + 1));
      continue;
    }
    if (eq == std::string::npos || !opt.count(arg.substr(0, eq))) {
      throw heed::ConfigError("unknown argument '" + arg + "'");
    }
    opt[arg.substr(0, eq)] = arg.substr(eq + 1);
  }
  heed::onednn::set_threads(1);
  const heed::text::Vocab src_vocab = small_vocab("s", 9), tgt_vocab = small_vocab("t", 7);
  heed::model::ModelConfig config;
  config.attention = opt["attention"];
  config.decoder = heed::model::parse_decoder(opt["decoder"]);
  config.input_feeding = opt["input_feeding"] == "1";
  config.cell = heed::model::parse_cell(opt["cell"]);
  config.bidirectional = opt["bidirectional"] == "1";
  config.encoder_layers = std::stoi(opt["encoder_layers"]);
  config.decoder_layers = std::stoi(opt["decoder_layers"]);
  config.bridge = heed::model::parse_bridge(opt["bridge"]);
  config.attention_normalizer = heed::attention::parse_normalizer(opt["normalizer"]);
  config.attention_options = attention_options;
  config.embed = 8;
  config.hidden = 10;
  config.attention_dim = 12;  // ≠ embed, hidden; divisible by 1, 2, 3, 4, 6 heads (multi-head)
  config.dropout = 0.f;
  config.src_vocab_size = static_cast<int>(src_vocab.size());
  config.tgt_vocab_size = static_cast<int>(tgt_vocab.size());
  const uint64_t seed = std::stoull(opt["seed"]);

  heed::model::Seq2Seq model(config);
  model.initialize(seed, 0.3f);

  // Four sentences of different lengths: exactness under padding is part of what is compared.
  heed::model::Batch batch;
  batch.size = 4;
  batch.src_lengths = {6, 2, 4, 1};
  batch.tgt_lengths = {3, 5, 1, 4};
  batch.src_len = 6;
  batch.tgt_len = 5;
  heed::Rng rng = heed::make_rng(seed, 2);
  batch.src.assign(size_t(batch.size * batch.src_len), 0);
  batch.tgt_in.assign(size_t(batch.size * batch.tgt_len), 0);
  batch.tgt_out.assign(size_t(batch.size * batch.tgt_len), 0);
  for (int64_t n = 0; n < batch.size; ++n) {
    for (int64_t s = 0; s < batch.src_lengths[size_t(n)]; ++s) {
      batch.src[size_t(n * batch.src_len + s)] = int32_t(4 + rng() % 9);
    }
    const int64_t len = batch.tgt_lengths[size_t(n)];
    for (int64_t t = 0; t < len; ++t) {
      const int32_t word = t + 1 < len ? int32_t(4 + rng() % 7) : heed::text::Vocab::kEosId;
      batch.tgt_out[size_t(n * batch.tgt_len + t)] = word;
      batch.tgt_in[size_t(n * batch.tgt_len + t)] =
          t == 0 ? heed::text::Vocab::kBosId : batch.tgt_out[size_t(n * batch.tgt_len + t - 1)];
    }
  }

  heed::model::LossOptions options;
  options.label_smoothing = std::stof(opt["label_smoothing"]);
  options.training = false;  // no dropout
  model.parameters().zero_grad();
  const heed::layers::LossSums sums = model.loss(batch, options, rng);

  heed::model::ModelFile file;
  file.config = model.config();
  file.src_vocab = src_vocab;
  file.tgt_vocab = tgt_vocab;
  heed::model::write_parameters(model.parameters(), file.tensors);
  heed::model::save_model(dir + "/model.safetensors", file);

  heed::io::SafeTensors b;
  auto add_ints = [&](const std::string& name, std::vector<int64_t> shape,
                      const std::vector<int32_t>& v) { b.add_i32(name, shape, v.data()); };
  add_ints("src", {batch.size, batch.src_len}, batch.src);
  add_ints("tgt_in", {batch.size, batch.tgt_len}, batch.tgt_in);
  add_ints("tgt_out", {batch.size, batch.tgt_len}, batch.tgt_out);
  add_ints("src_len", {batch.size},
           std::vector<int32_t>(batch.src_lengths.begin(), batch.src_lengths.end()));
  add_ints("tgt_len", {batch.size},
           std::vector<int32_t>(batch.tgt_lengths.begin(), batch.tgt_lengths.end()));
  b.save(dir + "/batch.safetensors");

  heed::io::SafeTensors result;
  const float loss = static_cast<float>(sums.loss / static_cast<double>(sums.tokens));
  result.add_f32("loss", {1}, &loss);
  heed::model::write_tensors(model.parameters(), true, "grad/", result);
  result.save(dir + "/result.safetensors");
  std::printf("%s\n", model.config().summary().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "heed_reference_case: error: %s\n", e.what());
    return heed::exit_code_for(e);
  }
}
