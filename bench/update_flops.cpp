#include "update_flops.h"

namespace heed::bench {

using namespace heed::model;
namespace {

// One time step of a recurrent layer for one sentence: the gate products of input and state.
double rnn_step_flops(CellType cell, int64_t input, int64_t hidden) {
  const int64_t gates = cell == CellType::kLstm ? 4 : 3;
  return 2.0 * double(gates * hidden) * double(input + hidden);
}

}  // namespace

UpdateFlops update_flops(const model::ModelConfig& config,
                         const attention::ResolvedAttention& attention, int64_t n, int64_t s,
                         int64_t t) {
  constexpr double kForwardAndBackward = 3.0;
  UpdateFlops f;
  const int64_t directions = config.bidirectional ? 2 : 1;
  const int64_t per_direction = config.hidden / directions;
  double encoder = 0;
  for (int l = 0; l < config.encoder_layers; ++l) {
    const int64_t input = l == 0 ? config.embed : config.hidden;
    encoder += double(directions) * rnn_step_flops(config.cell, input, per_direction);
  }
  f.encoder = kForwardAndBackward * encoder * double(n * s);

  const int64_t context = attention.context_size();
  int64_t feed = 0;
  if (config.decoder == DecoderType::kBahdanau) feed = context;
  if (config.decoder == DecoderType::kLuong && config.input_feeding) feed = config.hidden;
  double decoder = 0;
  for (int l = 0; l < config.decoder_layers; ++l) {
    const int64_t input = l == 0 ? config.embed + feed : config.hidden;
    decoder += rnn_step_flops(config.cell, input, config.hidden);
  }
  double bridge = 0;
  if (config.bridge == BridgeType::kDense) {
    bridge = 2.0 * double(config.key_size()) * double(config.decoder_layers * config.hidden);
  }
  f.decoder_rnn = kForwardAndBackward * (decoder * double(n * t) + bridge * double(n));

  // Every decoder steps one query at a time except Luong's without input feeding and concat;
  // the FLOPs are the same either way for every registered mechanism but the windowed ones'
  // edges.
  const attention::AttentionFlops a = attention.flops({n, s, t});
  f.attention = a.precompute + a.forward + a.backward + a.precompute_backward;
  if (config.decoder == DecoderType::kLuong) {
    f.attention += kForwardAndBackward * 2.0 * double(context + config.hidden) *
                   double(config.hidden) * double(n * t);
  }
  // The output layer reads H columns, or concat's C + H.
  f.output = kForwardAndBackward * 2.0 * double(config.output_size(attention)) *
             double(config.tgt_vocab_size) * double(n * t);
  return f;
}

}  // namespace heed::bench
