#include "heed/model/config.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/common/json_number.h"

namespace heed::model {

std::string to_string(CellType cell) {
  return cell == CellType::kLstm ? "lstm" : "gru";
}
namespace {

const std::map<DecoderType, std::string> kDecoderNames = {{DecoderType::kLuong, "luong"},
                                                          {DecoderType::kBahdanau, "bahdanau"},
                                                          {DecoderType::kConcat, "concat"}};
const std::map<BridgeType, std::string> kBridgeNames = {{BridgeType::kDense, "dense"},
                                                        {BridgeType::kZero, "zero"},
                                                        {BridgeType::kMean, "mean"},
                                                        {BridgeType::kLast, "last"},
                                                        {BridgeType::kFeedForwardPool, "ff-pool"}};

}  // namespace

std::string to_string(DecoderType decoder) {
  return kDecoderNames.at(decoder);
}
std::string to_string(BridgeType bridge) {
  return kBridgeNames.at(bridge);
}

CellType parse_cell(const std::string& name) {
  if (name == "lstm") return CellType::kLstm;
  if (name == "gru") return CellType::kGru;
  throw ConfigError("--cell: unknown value '" + name + "' (expected lstm or gru)");
}

DecoderType parse_decoder(const std::string& name) {
  for (const auto& [type, text] : kDecoderNames) {
    if (text == name) return type;
  }
  throw ConfigError("--decoder: unknown value '" + name + "' (expected luong, bahdanau or concat)");
}

BridgeType parse_bridge(const std::string& name) {
  for (const auto& [type, text] : kBridgeNames) {
    if (text == name) return type;
  }
  throw ConfigError("--bridge: unknown value '" + name +
                    "' (expected dense, zero, mean, last or ff-pool)");
}

attention::ResolvedAttention ModelConfig::validate() {
  auto positive = [](int value, const char* option) {
    if (value <= 0) throw ConfigError(std::string("--") + option + " must be positive");
  };
  positive(encoder_layers, "encoder-layers");
  positive(decoder_layers, "decoder-layers");
  positive(embed, "embed");
  positive(hidden, "hidden");
  // heed-train's own bounds, so that a model file cannot claim more (issue 29).
  auto at_most = [](int value, int max, const char* option) {
    if (value > max) {
      throw ConfigError(std::string("--") + option + " must be at most " + std::to_string(max));
    }
  };
  at_most(encoder_layers, kMaxLayers, "encoder-layers");
  at_most(decoder_layers, kMaxLayers, "decoder-layers");
  at_most(embed, kMaxWidth, "embed");
  at_most(hidden, kMaxWidth, "hidden");
  at_most(attention_dim, kMaxWidth, "attention-dim");
  if (bidirectional && hidden % 2 != 0) {
    throw ConfigError(
        "--hidden must be even with a bidirectional encoder (hidden/2 per direction)");
  }
  if (attention_dim < 0) throw ConfigError("--attention-dim must be 0 (= hidden) or positive");
  if (attention_dim == 0) attention_dim = hidden;
  if (!(dropout >= 0.0f && dropout < 1.0f)) throw ConfigError("--dropout must be in [0, 1)");
  if (!(dropout_src >= 0.0f && dropout_src < 1.0f)) {
    throw ConfigError("--dropout-src must be in [0, 1)");
  }
  if (!(dropout_trg >= 0.0f && dropout_trg < 1.0f)) {
    throw ConfigError("--dropout-trg must be in [0, 1)");
  }
  if (decoder != DecoderType::kLuong && input_feeding) {
    // Bahdanau feeds the context into the RNN already and concat has no attentional vector to
    // feed: input feeding is a Luong notion.
    input_feeding = false;
  }
  if (attention.empty()) throw ConfigError("--attention must name a mechanism");
  attention::AttentionConfig ac;
  ac.query_size = hidden;
  ac.key_size = key_size();
  ac.attention_dim = attention_dim;
  ac.normalizer = attention_normalizer;
  ac.options = attention_options;
  attention::ResolvedAttention resolved = attention::resolve_attention(attention, std::move(ac));
  attention = resolved.name();
  attention_options = resolved.config().options;
  const int64_t output = output_size(resolved);
  if (tie_target_embeddings && embed != output) {
    throw ConfigError(
        decoder == DecoderType::kConcat
            ? "--tie-embeddings with --decoder concat needs --embed equal to the output layer's "
              "input width, context + hidden = " +
                  std::to_string(output) + " (the embeddings are " + std::to_string(embed) +
                  " wide)"
            : "--tie-embeddings needs --embed equal to --hidden (the output layer reads " +
                  std::to_string(hidden) + "-wide vectors; the embeddings are " +
                  std::to_string(embed) + " wide)");
  }
  return resolved;
}

int64_t ModelConfig::output_size(const attention::ResolvedAttention& resolved) const {
  return decoder == DecoderType::kConcat ? resolved.context_size() + hidden : hidden;
}

std::string ModelConfig::to_json() const {
  nlohmann::json j = {{"cell", to_string(cell)},
                      {"attention", attention},
                      {"decoder", to_string(decoder)},
                      {"input_feeding", input_feeding},
                      {"bidirectional", bidirectional},
                      {"encoder_layers", encoder_layers},
                      {"decoder_layers", decoder_layers},
                      {"embed", embed},
                      {"hidden", hidden},
                      {"attention_dim", attention_dim},
                      {"attention_normalizer", attention::to_string(attention_normalizer)},
                      {"attention_options", attention_options},
                      {"bridge", to_string(bridge)},
                      {"dropout", dropout},
                      {"src_vocab_size", src_vocab_size},
                      {"tgt_vocab_size", tgt_vocab_size}};
  // Written only when on, so that models without them keep the configuration older heeds read.
  if (tie_target_embeddings) j["tie_target_embeddings"] = true;
  if (dropout_src > 0.f) j["dropout_src"] = dropout_src;
  if (dropout_trg > 0.f) j["dropout_trg"] = dropout_trg;
  return j.dump();
}

ModelConfig ModelConfig::from_json(const std::string& text) {
  ModelConfig c;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw FormatError("model config is not JSON");
  }
  auto field = [&j](const char* name) -> const nlohmann::json& {
    if (!j.contains(name)) throw FormatError(std::string("model config lacks '") + name + "'");
    return j.at(name);
  };
  // Numbers are read checked: an int field holding 1e30 is a malformed file, not a cast.
  auto number = [&field](const char* name, auto* out) {
    using T = std::remove_pointer_t<decltype(out)>;
    const auto v = json_number<T>(field(name));
    if (!v) {
      throw FormatError(std::string("model config field '") + name + "' is not " +
                        (std::is_integral_v<T> ? "an int" : "a float") + " in range");
    }
    *out = *v;
  };
  try {
    c.cell = parse_cell(field("cell").get<std::string>());
    c.attention = field("attention").get<std::string>();
    c.decoder = parse_decoder(field("decoder").get<std::string>());
    c.input_feeding = field("input_feeding").get<bool>();
    c.bidirectional = field("bidirectional").get<bool>();
    number("encoder_layers", &c.encoder_layers);
    number("decoder_layers", &c.decoder_layers);
    number("embed", &c.embed);
    number("hidden", &c.hidden);
    number("attention_dim", &c.attention_dim);
    if (j.contains("attention_normalizer")) {
      c.attention_normalizer =
          attention::parse_normalizer(j.at("attention_normalizer").get<std::string>());
    }
    if (j.contains("attention_options")) {
      c.attention_options = j.at("attention_options").get<std::map<std::string, double>>();
    }
    c.bridge = parse_bridge(field("bridge").get<std::string>());
    number("dropout", &c.dropout);
    number("src_vocab_size", &c.src_vocab_size);
    number("tgt_vocab_size", &c.tgt_vocab_size);
    if (j.contains("tie_target_embeddings")) {
      c.tie_target_embeddings = j.at("tie_target_embeddings").get<bool>();
    }
    if (j.contains("dropout_src")) number("dropout_src", &c.dropout_src);
    if (j.contains("dropout_trg")) number("dropout_trg", &c.dropout_trg);
    c.validate();
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(std::string("model config has a malformed field (") + e.what() + ")");
  } catch (const ConfigError& e) {
    throw FormatError(std::string("model config is invalid: ") + e.what());
  }
  return c;
}

int64_t ModelConfig::max_source_length() const {
  const auto found = attention_options.find("max-positions");
  return found == attention_options.end() ? 0 : static_cast<int64_t>(found->second);
}

std::string ModelConfig::summary() const {
  std::string options;
  for (const auto& [name, value] : attention_options) {
    char text[64];
    std::snprintf(text, sizeof text, " %s=%g", name.c_str(), value);
    options += text;
  }
  if (attention_normalizer != attention::Normalizer::kSoftmax) {
    options += " normalizer=" + attention::to_string(attention_normalizer);
  }
  return "cell=" + to_string(cell) + " attention=" + attention + options +
         " decoder=" + to_string(decoder) + " input_feeding=" + (input_feeding ? "on" : "off") +
         " bidirectional=" + (bidirectional ? "on" : "off") +
         " layers=" + std::to_string(encoder_layers) + "/" + std::to_string(decoder_layers) +
         " embed=" + std::to_string(embed) + " hidden=" + std::to_string(hidden) +
         " bridge=" + to_string(bridge) + (tie_target_embeddings ? " tied" : "") +
         " vocab=" + std::to_string(src_vocab_size) + "/" + std::to_string(tgt_vocab_size);
}

}  // namespace heed::model
