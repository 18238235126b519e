// Helpers shared by the benchmark programs in bench/ (not installed): command-line numbers, the
// median, and the model of train_speed.sh / translate_speed.sh that the phase benchmarks build.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

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

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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
