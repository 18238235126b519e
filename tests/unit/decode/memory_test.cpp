#include "heed/decode/memory.h"

#include <catch2/catch.hpp>
#include <climits>
#include <cmath>
#include <string>

using namespace heed;

namespace {

// A validated config (its attention resolved, as a loaded model's is).
model::ModelConfig model_of(int vocab, int hidden, const std::string& attention = "multi-head") {
  model::ModelConfig model;
  model.src_vocab_size = model.tgt_vocab_size = vocab;
  model.hidden = model.attention_dim = hidden;
  model.embed = hidden / 2;
  model.attention = attention;
  model.validate();
  return model;
}

}  // namespace

TEST_CASE("decode memory: the estimate scales with hypotheses and source length",
          "[decode][fast]") {
  // A mechanism whose hypotheses each hold a copy of the key side.
  const model::ModelConfig model = model_of(32000, 512);
  REQUIRE_FALSE(model.resolved_attention().traits().shares_key_side);
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

TEST_CASE("decode memory: a key side the hypotheses share is counted once per sentence",
          "[decode][fast]") {
  const model::ModelConfig shared = model_of(32000, 512, "general");
  const model::ModelConfig per_hypothesis = model_of(32000, 512);
  REQUIRE(shared.resolved_attention().traits().shares_key_side);
  decode::DecodeConfig config;
  config.beam_size = 50;
  CHECK(decode::key_side_copies(shared, config, {32, 250}) == 32);
  CHECK(decode::key_side_copies(per_hypothesis, config, {32, 250}) == 32 * 50);
  // A beam of 50 against one of 5: the shared key side stays, the rest grows tenfold.
  const double beam50 = decode::decoding_bytes(shared, config, {32, 250});
  const double caches50 = decode::translation_memory(shared, 0, config, {32, 250}).caches;
  config.beam_size = 5;
  CHECK(beam50 < 6 * decode::decoding_bytes(shared, config, {32, 250}));
  CHECK(caches50 == decode::translation_memory(shared, 0, config, {32, 250}).caches);
  CHECK(decode::decoding_bytes(shared, config, {32, 250}) <
        decode::decoding_bytes(per_hypothesis, config, {32, 250}));
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
