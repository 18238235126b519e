#include "heed/model/config.h"

#include <catch2/catch.hpp>

#include "heed/common/error.h"

using namespace heed;
using model::ModelConfig;

TEST_CASE("model config: JSON round trip keeps every field", "[model][fast]") {
  ModelConfig c;
  c.cell = model::CellType::kGru;
  c.attention = "additive";
  c.decoder = model::DecoderType::kBahdanau;
  c.bidirectional = false;
  c.encoder_layers = 2;
  c.decoder_layers = 3;
  c.embed = 32;
  c.hidden = 48;
  c.bridge = model::BridgeType::kZero;
  c.dropout = 0.25f;
  c.src_vocab_size = 100;
  c.tgt_vocab_size = 200;
  c.validate();
  CHECK_FALSE(c.input_feeding);  // Bahdanau decoders have no input feeding
  CHECK(c.attention_dim == 48);
  ModelConfig back = ModelConfig::from_json(c.to_json());
  CHECK(back.to_json() == c.to_json());
  CHECK(back.summary() == c.summary());
}

TEST_CASE(
    "model config: tied target embeddings round-trip, need embed = hidden, and are absent "
    "from untied configs",
    "[model][fast]") {
  ModelConfig c;
  c.src_vocab_size = c.tgt_vocab_size = 50;
  c.validate();
  CHECK(c.to_json().find("tie_target_embeddings") == std::string::npos);
  CHECK_FALSE(ModelConfig::from_json(c.to_json()).tie_target_embeddings);
  c.tie_target_embeddings = true;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("--embed equal to --hidden"));
  c.embed = c.hidden;
  c.validate();
  const ModelConfig back = ModelConfig::from_json(c.to_json());
  CHECK(back.tie_target_embeddings);
  CHECK(back.summary().find(" tied ") != std::string::npos);
}

TEST_CASE("model config: whole-word dropout round-trips, is checked, and is absent when off",
          "[model][fast]") {
  ModelConfig c;
  c.src_vocab_size = c.tgt_vocab_size = 50;
  c.validate();
  CHECK(c.to_json().find("dropout_src") == std::string::npos);
  CHECK(c.to_json().find("dropout_trg") == std::string::npos);
  c.dropout_src = 0.1f;
  c.dropout_trg = 0.2f;
  c.validate();
  const ModelConfig back = ModelConfig::from_json(c.to_json());
  CHECK(back.dropout_src == 0.1f);
  CHECK(back.dropout_trg == 0.2f);
  c.dropout_trg = 1.f;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("--dropout-trg"));
  c.dropout_trg = 0.f;
  c.dropout_src = -0.5f;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("--dropout-src"));
}

TEST_CASE("model config: invalid values are named", "[model][fast]") {
  ModelConfig c;
  c.hidden = 15;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("--hidden must be even"));
  c = ModelConfig();
  c.dropout = 1.0f;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("--dropout"));
  CHECK_THROWS_WITH(model::parse_cell("rnn"), Catch::Contains("expected lstm or gru"));
  CHECK_THROWS_AS(ModelConfig::from_json("{"), FormatError);
  CHECK_THROWS_WITH(ModelConfig::from_json("{\"cell\": \"lstm\"}"), Catch::Contains("lacks"));
  std::string text = ModelConfig().to_json();
  text.replace(text.find("\"lstm\""), 6, "\"tree\"");
  CHECK_THROWS_AS(ModelConfig::from_json(text), FormatError);
  // Numbers out of their field's range are malformed files, not casts (found by fuzzing).
  std::string huge = ModelConfig().to_json();
  const size_t at = huge.find("\"hidden\":") + 9;
  huge.replace(at, huge.find(',', at) - at, "1e30");
  CHECK_THROWS_WITH(ModelConfig::from_json(huge), Catch::Contains("'hidden' is not an int"));
  std::string fraction = ModelConfig().to_json();
  const size_t d = fraction.find("\"dropout\":") + 10;
  fraction.replace(d, fraction.find(',', d) - d, "1e300");
  CHECK_THROWS_WITH(ModelConfig::from_json(fraction), Catch::Contains("'dropout' is not a float"));
}

TEST_CASE("model config: format-1 configs load with the defaults of the new fields",
          "[model][fast]") {
  // Exactly what format 1 wrote: no attention_normalizer, no attention_options.
  const std::string v1 =
      "{\"attention\":\"general\",\"attention_dim\":24,\"bidirectional\":true,\"bridge\":"
      "\"dense\",\"cell\":\"lstm\",\"decoder\":\"luong\",\"decoder_layers\":1,\"dropout\":0.0,"
      "\"embed\":16,\"encoder_layers\":1,\"hidden\":24,\"input_feeding\":true,"
      "\"src_vocab_size\":300,\"tgt_vocab_size\":300}";
  const ModelConfig c = ModelConfig::from_json(v1);
  CHECK(c.attention_normalizer == attention::Normalizer::kSoftmax);
  // No options recorded: each option of the mechanism at its default.
  CHECK(c.attention_options == std::map<std::string, double>{{"identity-init", 0}});
  CHECK(c.bridge == model::BridgeType::kDense);
}

TEST_CASE("model config: bridges, normaliser and attention options round-trip and are checked",
          "[model][fast]") {
  for (const char* name : {"dense", "zero", "mean", "last", "ff-pool"}) {
    CHECK(model::to_string(model::parse_bridge(name)) == name);
  }
  CHECK_THROWS_WITH(model::parse_bridge("avg"),
                    Catch::Contains("expected dense, zero, mean, last or ff-pool"));
  ModelConfig c;
  c.bridge = model::BridgeType::kFeedForwardPool;
  c.attention_normalizer = attention::Normalizer::kSparsemax;
  c.validate();
  const ModelConfig back = ModelConfig::from_json(c.to_json());
  CHECK(back.bridge == model::BridgeType::kFeedForwardPool);
  CHECK(back.attention_normalizer == attention::Normalizer::kSparsemax);
  CHECK(back.to_json() == c.to_json());
  c.attention_options = {{"heads", 4}};
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("--heads does not apply to attention 'general'"));
  // A file's normaliser is read into the enum: a name heed does not know is refused there.
  std::string bad = ModelConfig().to_json();
  const std::string softmax = "\"attention_normalizer\":\"softmax\"";
  REQUIRE(bad.find(softmax) != std::string::npos);
  bad.replace(bad.find(softmax), softmax.size(), "\"attention_normalizer\":\"max\"");
  CHECK_THROWS_WITH(ModelConfig::from_json(bad), Catch::Contains("--attention-normalizer"));
  c = ModelConfig();
  c.attention = "nope";
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("unknown attention 'nope'"));
}

TEST_CASE("model config: the longest source the attention can score", "[model][fast]") {
  ModelConfig c;
  c.src_vocab_size = c.tgt_vocab_size = 8;
  c.validate();
  CHECK(c.max_source_length() == 0);  // general: any length
  c.attention = "location";
  c.attention_options = {{"max-positions", 12}};
  c.validate();
  CHECK(c.max_source_length() == 12);
  c.attention_options.clear();
  c.validate();
  CHECK(c.max_source_length() == 100);  // the default, recorded by validate()
}

TEST_CASE(
    "model config: the concat decoder and the issue-32 attention options round-trip; ties need "
    "embed = context + hidden",
    "[model][fast]") {
  for (const char* name : {"luong", "bahdanau", "concat"}) {
    CHECK(model::to_string(model::parse_decoder(name)) == name);
  }
  CHECK_THROWS_WITH(model::parse_decoder("plain"),
                    Catch::Contains("expected luong, bahdanau or concat"));
  ModelConfig c;
  c.decoder = model::DecoderType::kConcat;
  c.hidden = 48;
  c.src_vocab_size = c.tgt_vocab_size = 50;
  const attention::ResolvedAttention general = c.validate();
  CHECK_FALSE(c.input_feeding);  // concat has no attentional vector to feed
  CHECK(c.output_size(general) == 48 + 48);
  CHECK(c.attention_options == std::map<std::string, double>{{"identity-init", 0}});
  c.attention_options = {{"identity-init", 1}};
  c.validate();
  ModelConfig back = ModelConfig::from_json(c.to_json());
  CHECK(back.decoder == model::DecoderType::kConcat);
  CHECK(back.attention_options.at("identity-init") == 1);
  CHECK(back.to_json() == c.to_json());
  CHECK(back.summary().find("identity-init=1") != std::string::npos);
  CHECK(back.summary().find("decoder=concat") != std::string::npos);
  c.attention = "multi-head";
  c.attention_dim = 16;
  c.attention_options = {{"heads", 1}, {"scale-scores", 0}};
  const attention::ResolvedAttention multi_head = c.validate();
  CHECK(c.output_size(multi_head) == 16 + 48);  // the context is A wide
  back = ModelConfig::from_json(c.to_json());
  CHECK(back.attention_options == c.attention_options);
  c.attention = "scaled-dot";
  c.attention_options = {{"learn-temperature", 1}};
  c.validate();
  CHECK(ModelConfig::from_json(c.to_json()).attention_options.at("learn-temperature") == 1);
  // Tied: the output layer reads context + hidden = 96 columns.
  c.tie_target_embeddings = true;
  c.embed = 48;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("--tie-embeddings with --decoder concat needs "
                                                  "--embed equal to the output layer's input "
                                                  "width, context + hidden = 96 (the embeddings "
                                                  "are 48 wide)"));
  c.embed = 96;
  c.validate();
  CHECK(ModelConfig::from_json(c.to_json()).tie_target_embeddings);
}

TEST_CASE("model config: a model file without the issue-32 options gets their defaults",
          "[model][fast]") {
  // What heed wrote before them: general, multi-head and scaled-dot configs without the options.
  auto without = [](ModelConfig c, const std::string& recorded, const std::string& before) {
    c.src_vocab_size = c.tgt_vocab_size = 50;
    c.validate();
    std::string text = c.to_json();
    const size_t at = text.find(recorded);
    REQUIRE(at != std::string::npos);
    return ModelConfig::from_json(text.replace(at, recorded.size(), before)).attention_options;
  };
  ModelConfig c;
  CHECK(without(c, "{\"identity-init\":0.0}", "{}").at("identity-init") == 0);
  c.attention = "multi-head";
  c.attention_options = {{"heads", 2}};
  CHECK(without(c, "{\"heads\":2.0,\"scale-scores\":1.0}", "{\"heads\":2.0}").at("scale-scores") ==
        1);
  c.attention = "scaled-dot";
  c.attention_options.clear();
  CHECK(without(c, "{\"learn-temperature\":0.0}", "{}").at("learn-temperature") == 0);
}
