#include "heed/decode/memory.h"

#include <catch2/catch.hpp>
#include <climits>
#include <cmath>

using namespace heed;

namespace {

model::ModelConfig model_of(int vocab, int hidden) {
  model::ModelConfig model;
  model.src_vocab_size = model.tgt_vocab_size = vocab;
  model.hidden = model.attention_dim = hidden;
  model.embed = hidden / 2;
  return model;
}

}  // namespace

TEST_CASE("decode memory: the estimate scales with hypotheses and source length",
          "[decode][fast]") {
  const model::ModelConfig model = model_of(32000, 512);
  decode::DecodeConfig config;
  const decode::DecodeSizes sizes;  // batch 32, sources up to 250 tokens
  const double usual = decode::decoding_bytes(model, config, sizes);
  // 160 hypotheses, each with 32000 log-probabilities and 250 x 2 x 512 keys: hundreds of MiB.
  CHECK(usual > 200e6);
  CHECK(usual < 1e9);
  config.beam_size = 50;
  const double beam50 = decode::decoding_bytes(model, config, sizes);
  // Ten times the hypotheses; the encoder's part stays.
  CHECK(beam50 > 6 * usual);
  CHECK(beam50 < 10 * usual);
  config.beam_size = 5;
  CHECK(decode::decoding_bytes(model, config, {64, 250}) == Approx(2 * usual).epsilon(0.05));
  CHECK(decode::decoding_bytes(model, config, {32, 25}) < usual / 5);
  // Kept attention rows grow with source x output length.
  config.keep_attention = true;
  CHECK(decode::decoding_bytes(model, config, sizes) > 1.3 * usual);
  // Sampling adds the sampler's scratch over the vocabulary (a double and an int per token).
  config.keep_attention = false;
  config.beam_size = 1;
  const double greedy = decode::decoding_bytes(model, config, sizes);
  config.sampling = decode::parse_sampling("nucleus:0.9");
  CHECK(decode::decoding_bytes(model, config, sizes) - greedy >= 12.0 * 32000);
}

TEST_CASE("decode memory: impossible sizes give huge finite numbers, not overflow",
          "[decode][fast]") {
  const model::ModelConfig tiny = model_of(355, 32);
  decode::DecodeConfig config;
  config.beam_size = 100000;  // the beam that once grew to 24 GB before the kernel killed it
  CHECK(decode::decoding_bytes(tiny, config, {}) > 100.0 * (1LL << 30));
  config.beam_size = INT_MAX;
  config.max_length_ratio = 1e30f;
  const double absurd = decode::decoding_bytes(tiny, config, {INT_MAX, INT_MAX});
  CHECK(std::isfinite(absurd));
  CHECK(absurd > 1e30);
}
