#include "bench/update_flops.h"

#include <catch2/catch.hpp>

using namespace heed;

namespace {

// An update of N = 2 pairs of S = 3 source and T = 5 target tokens, general attention, H = 8
// (encoder 4 + 4), E = 6, V = 10.
constexpr int64_t kN = 2, kS = 3, kT = 5;
bench::UpdateFlops small_model_flops(model::DecoderType decoder) {
  model::ModelConfig config;
  config.attention = "general";
  config.decoder = decoder;
  config.hidden = 8;
  config.embed = 6;
  config.src_vocab_size = 20;
  config.tgt_vocab_size = 10;
  const attention::ResolvedAttention attention = config.validate();
  return bench::update_flops(config, attention, kN, kS, kT);
}

}  // namespace

TEST_CASE("flops: an update of a small Luong model, counted by hand", "[bench][fast]") {
  const bench::UpdateFlops f = small_model_flops(model::DecoderType::kLuong);
  // Encoder: 2 directions · 2 · 4 gates · 4 · (6 + 4) per source token, × 3 for the backward.
  CHECK(f.encoder == 3.0 * 2 * 2 * 16 * 10 * (kN * kS));
  // Decoder: LSTM 8 over embedding 6 + fed 8: 2 · 32 · (14 + 8) per step; dense bridge 8 → 8
  // once per sentence.
  CHECK(f.decoder_rnn == 3.0 * (2.0 * 32 * 22 * (kN * kT) + 2.0 * 8 * 8 * kN));
  // General attention: W h_s once per key and its backward (2 · 8 · 8 · N S, twice more);
  // scores and context 2 · S · 8 each per query, three times with the backward; the
  // attentional layer 2 · 16 · 8 per step, × 3.
  const double general = 3.0 * 2 * 8 * 8 * (kN * kS) + 3.0 * 2 * 2 * kS * 8 * (kN * kT);
  CHECK(f.attention == Approx(general + 3.0 * 2 * 16 * 8 * (kN * kT)));
  CHECK(f.output == 3.0 * 2 * 8 * 10 * (kN * kT));
  CHECK(f.total() == Approx(f.encoder + f.decoder_rnn + f.attention + f.output));
}

TEST_CASE("flops: the concat decoder has no attentional layer and a wider output layer",
          "[bench][fast]") {
  const bench::UpdateFlops f = small_model_flops(model::DecoderType::kConcat);
  // Decoder: LSTM 8 over the embedding 6 alone (no feeding): 2 · 32 · (6 + 8) per step.
  CHECK(f.decoder_rnn == 3.0 * (2.0 * 32 * 14 * (kN * kT) + 2.0 * 8 * 8 * kN));
  // The mechanism alone, as under Luong; the output layer reads [c; h], 16 wide.
  CHECK(f.attention == Approx(3.0 * 2 * 8 * 8 * (kN * kS) + 3.0 * 2 * 2 * kS * 8 * (kN * kT)));
  CHECK(f.output == 3.0 * 2 * 16 * 10 * (kN * kT));
}
