// Helpers shared by the benchmark programs in bench/ (not installed): command-line numbers
// and the model of train_speed.sh / translate_speed.sh that the phase benchmarks build (medians:
// heed/common/stats.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/model/config.h"

namespace heed::bench {

// text as a positive integer; ConfigError naming flag otherwise.
inline int64_t parse_count(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < 1) {
    throw ConfigError(flag + " must be a positive integer, not '" + text + "'");
  }
  return value;
}

// The options the phase benchmarks share: the model, its precision, the threads, the repeats and
// the size of the matmul-peak measurement.
struct ModelOptions {
  std::string precision = "f32";
  int threads = 2;
  int vocab = 8000;
  int hidden = 512;
  int embed = 256;
  std::string attention = "general";
  int64_t repeats = 5;
  int64_t peak_size = 2048;
};

// Stores value in options when flag is one of ModelOptions' flags; false for any other flag.
inline bool parse_model_option(const std::string& flag, const std::string& value,
                               ModelOptions& options) {
  if (flag == "--precision") {
    if (value != "f32" && value != "bf16") {
      throw ConfigError("--precision is f32 or bf16, not '" + value + "'");
    }
    options.precision = value;
  } else if (flag == "--attention") {
    options.attention = attention::canonical_attention_name(value);
  } else if (flag == "--threads") {
    options.threads = int(parse_count(flag, value));
  } else if (flag == "--vocab") {
    options.vocab = int(parse_count(flag, value));
  } else if (flag == "--hidden") {
    options.hidden = int(parse_count(flag, value));
  } else if (flag == "--embed") {
    options.embed = int(parse_count(flag, value));
  } else if (flag == "--repeats") {
    options.repeats = parse_count(flag, value);
  } else if (flag == "--peak-size") {
    options.peak_size = parse_count(flag, value);
  } else {
    return false;
  }
  return true;
}

// bi-LSTM encoder hidden/2 + hidden/2, LSTM decoder with input feeding, the given attention,
// no dropout (the PyTorch peer's model has none).
inline model::ModelConfig bench_model_config(const std::string& attention, int hidden, int embed,
                                             int vocab) {
  model::ModelConfig config;
  config.attention = attention;
  config.hidden = hidden;
  config.embed = embed;
  config.dropout = 0.f;
  config.src_vocab_size = vocab;
  config.tgt_vocab_size = vocab;
  return config;
}

}  // namespace heed::bench
