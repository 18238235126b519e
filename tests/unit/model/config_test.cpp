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
}
