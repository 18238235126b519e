#include "bench/update_flops.h"

#include <catch2/catch.hpp>

using namespace heed;

TEST_CASE("flops: an update of a small Luong model, counted by hand", "[bench][fast]") {
  model::ModelConfig config;
  config.attention = "general";
  config.hidden = 8;  // encoder 4 + 4
  config.embed = 6;
  config.src_vocab_size = 20;
  config.tgt_vocab_size = 10;
  const attention::ResolvedAttention attention = config.validate();
  const int64_t n = 2, s = 3, t = 5;
  const bench::UpdateFlops f = bench::update_flops(config, attention, n, s, t);
  // Encoder: 2 directions · 2 · 4 gates · 4 · (6 + 4) per source token, × 3 for the backward.
  CHECK(f.encoder == 3.0 * 2 * 2 * 16 * 10 * (n * s));
  // Decoder: LSTM 8 over embedding 6 + fed 8: 2 · 32 · (14 + 8) per step; dense bridge 8 → 8
  // once per sentence.
  CHECK(f.decoder_rnn == 3.0 * (2.0 * 32 * 22 * (n * t) + 2.0 * 8 * 8 * n));
  // General attention: W h_s once per key and its backward (2 · 8 · 8 · N S, twice more);
  // scores and context 2 · S · 8 each per query, three times with the backward; the
  // attentional layer 2 · 16 · 8 per step, × 3.
  const double general = 3.0 * 2 * 8 * 8 * (n * s) + 3.0 * 2 * 2 * s * 8 * (n * t);
  CHECK(f.attention == Approx(general + 3.0 * 2 * 16 * 8 * (n * t)));
  CHECK(f.output == 3.0 * 2 * 8 * 10 * (n * t));
  CHECK(f.total() == Approx(f.encoder + f.decoder_rnn + f.attention + f.output));
}
