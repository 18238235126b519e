// ModelConfig: the architecture of an encoder-decoder. It travels inside the model file, so
// translate and align rebuild the network from it and never take architecture flags.
#pragma once

#include <map>
#include <string>

#include "heed/attention/registry.h"

namespace heed::model {

enum class CellType { kLstm, kGru };
enum class DecoderType { kLuong, kBahdanau, kConcat };
enum class BridgeType { kDense, kZero, kMean, kLast, kFeedForwardPool };

// The largest sizes a model may have (heed-train's option bounds; a model file is held to them).
inline constexpr int kMaxLayers = 64;
inline constexpr int kMaxWidth = 65536;

struct ModelConfig {
  CellType cell = CellType::kLstm;            // recurrent cell of encoder and decoder
  std::string attention = "general";          // attention registry name (docs/attention.md)
  DecoderType decoder = DecoderType::kLuong;  // the arrangement around the attention (docs)
  bool input_feeding = true;                  // Luong only: feed h̃_{t-1} into the RNN input
  bool bidirectional = true;                  // encoder reads both ways, hidden/2 per direction
  int encoder_layers = 1;                     // stacked encoder RNN layers
  int decoder_layers = 1;                     // stacked decoder RNN layers
  int embed = 256;                            // embedding width (source and target)
  int hidden = 512;                           // decoder state and encoder output width
  int attention_dim = 0;                      // additive attention width A; 0 = hidden
  attention::Normalizer attention_normalizer = attention::Normalizer::kSoftmax;
  std::map<std::string, double> attention_options;  // the mechanism's own (--heads, …)
  BridgeType bridge = BridgeType::kDense;           // decoder initial state (bridge.h)
  float dropout = 0.3f;                             // on embeddings, between layers, on outputs
  float dropout_src = 0.f;  // whole source words: a token's embedding zeroed (Marian's name)
  float dropout_trg = 0.f;  // whole target words (the decoder's input tokens)
  // The output projection is the target embedding matrix (Press & Wolf 2017; OpenNMT's
  // share_decoder_embeddings): one [V, E] parameter, so embed must equal output_size().
  bool tie_target_embeddings = false;
  int src_vocab_size = 0;  // set from the vocabularies
  int tgt_vocab_size = 0;

  // Fills derived values (attention_dim; the mechanism's canonical name and option defaults, so
  // that a model file records every value its network was built with) and rejects impossible
  // combinations with a sentence naming the option. Throws ConfigError. Returns the attention
  // resolved from the attention fields: the value a model is built from and carries.
  attention::ResolvedAttention validate();

  int encoder_direction_size() const { return bidirectional ? hidden / 2 : hidden; }
  int key_size() const { return hidden; }
  // Width of o_t, the vector the output layer projects: hidden, or with the concat decoder the
  // attention's context and the hidden state side by side, context_size() + hidden.
  int64_t output_size(const attention::ResolvedAttention& attention) const;
  // The longest source sentence the attention can score: location's --max-positions; 0 = any.
  int64_t max_source_length() const;

  // JSON text, stored in the model file's metadata.
  std::string to_json() const;
  // Throws FormatError for malformed or unknown values (naming the field). Configs written by
  // format version 1 lack attention_normalizer and attention_options: they get the defaults.
  static ModelConfig from_json(const std::string& text);
  // One line "cell=lstm attention=general ..." for logs.
  std::string summary() const;
};

std::string to_string(CellType cell);
std::string to_string(DecoderType decoder);
std::string to_string(BridgeType bridge);
// Throw ConfigError listing the valid values.
CellType parse_cell(const std::string& name);
DecoderType parse_decoder(const std::string& name);
BridgeType parse_bridge(const std::string& name);

}  // namespace heed::model
