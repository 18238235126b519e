// Checkpoint averaging by hand on two tiny models, and its refusals; a tied model through save and
// load.
#include "heed/model/average.h"

#include <catch2/catch.hpp>

#include "heed/common/error.h"
#include "heed/model/seq2seq.h"
#include "heed/model/serialize.h"
#include "support/temp_dir.h"
#include "support/tiny_model_file.h"

using namespace heed;

namespace {

// The tiny model file with a whole set of parameters (initialised by seed) and a checkpoint's
// optimizer state and trainer state.
model::ModelFile tiny(uint64_t seed) {
  model::ModelFile m = test::tiny_model_file();
  m.tensors = io::SafeTensors();
  model::Seq2Seq net(m.config);
  net.initialize(seed, 0.5f);
  model::write_parameters(net.parameters(), m.tensors);
  const float w[2] = {1, 2};
  m.tensors.add_f32("adam/m/encoder/x", {2}, w);  // optimizer state: not averaged, not kept
  m.extra["train_state"] = "format 2\n";
  return m;
}

}  // namespace

TEST_CASE("average: two tiny models by hand", "[model][fast]") {
  test::TempDir dir;
  const model::ModelFile a = tiny(1), b = tiny(2);
  model::save_model(dir.path("a"), a);
  model::save_model(dir.path("b"), b);
  const model::ModelFile mean = model::average_models({dir.path("a"), dir.path("b")});
  size_t parameters = 0;
  for (const io::StoredTensor& t : a.tensors.tensors()) {
    if (t.name.rfind("adam/", 0) == 0) continue;
    const std::vector<float> x = t.as_f32(), y = b.tensors.get(t.name).as_f32(),
                             m = mean.tensors.get(t.name).as_f32();
    REQUIRE(m.size() == x.size());
    for (size_t i = 0; i < x.size(); ++i) CHECK(m[i] == float((double(x[i]) + double(y[i])) / 2));
    CHECK(mean.tensors.get(t.name).shape == t.shape);
    ++parameters;
  }
  CHECK(parameters > 5);
  CHECK(mean.tensors.tensors().size() == parameters);
  CHECK_FALSE(mean.tensors.has("adam/m/encoder/x"));
  CHECK(mean.extra.at("bpe_codes") == "#version: 0.2\na b\n");
  CHECK(mean.extra.count("train_state") == 0);
  CHECK(mean.config.to_json() == a.config.to_json());
  // One model averages to itself; the result saves and loads as a model.
  const model::ModelFile one = model::average_models({dir.path("a")});
  CHECK(one.tensors.get("bridge/weight").as_f32() == a.tensors.get("bridge/weight").as_f32());
  model::save_model(dir.path("mean"), mean);
  CHECK(model::load_model(dir.path("mean")).tensors.get("bridge/weight").as_f32() ==
        mean.tensors.get("bridge/weight").as_f32());
}

TEST_CASE("average: other architectures, vocabularies or parameters are refused, naming both",
          "[model][fast]") {
  test::TempDir dir;
  model::save_model(dir.path("a"), tiny(1));
  model::ModelFile wider = tiny(1);
  wider.config.hidden = 8;
  model::save_model(dir.path("wider"), wider);
  CHECK_THROWS_WITH(model::average_models({dir.path("a"), dir.path("wider")}),
                    Catch::Contains("wider: another architecture") && Catch::Contains("/a)"));
  model::ModelFile words = tiny(1);
  words.tgt_vocab = text::Vocab::from_counts(text::CountList{{"world", 3}});
  model::save_model(dir.path("words"), words);
  CHECK_THROWS_WITH(model::average_models({dir.path("a"), dir.path("words")}),
                    Catch::Contains("other vocabularies"));
  model::ModelFile extra = tiny(1);
  const float w[1] = {1};
  extra.tensors.add_f32("decoder/new", {1}, w);
  model::ModelFile fewer = test::tiny_model_file();  // one parameter of the architecture only
  model::save_model(dir.path("fewer"), fewer);
  CHECK_THROWS_WITH(model::average_models({dir.path("fewer")}),
                    Catch::Contains("fewer: parameter '") && Catch::Contains("is missing"));
  model::save_model(dir.path("extra"), extra);
  CHECK_THROWS_WITH(model::average_models({dir.path("a"), dir.path("extra")}),
                    Catch::Contains("'decoder/new' is not in the first model"));
  CHECK_THROWS_WITH(model::average_models({dir.path("extra"), dir.path("a")}),
                    Catch::Contains("lacks parameters"));
  CHECK_THROWS_AS(model::average_models({}), ConfigError);
  CHECK_THROWS_AS(model::average_models({dir.path("missing")}), FileError);
}

TEST_CASE("tied target embeddings: one matrix, saved once, loaded back into both uses",
          "[model][fast]") {
  model::ModelConfig c;
  c.embed = c.hidden = 8;
  c.tie_target_embeddings = true;
  c.attention = "dot";
  c.src_vocab_size = 10;
  c.tgt_vocab_size = 12;
  model::Seq2Seq model(c);
  model.initialize(3, 0.1f);
  model::ModelConfig untied = c;
  untied.tie_target_embeddings = false;
  model::Seq2Seq separate(untied);
  // Exactly the projection's [V, H] fewer parameters.
  CHECK(separate.parameters().numel() - model.parameters().numel() == 12 * 8);
  io::SafeTensors tensors;
  model::write_parameters(model.parameters(), tensors);
  CHECK_FALSE(tensors.has("decoder/output/weight"));
  model::Seq2Seq loaded(c);
  model::read_parameters(tensors, "tied.heed", loaded.parameters());
  CHECK(loaded.parameters().get("decoder/embedding/weight").value.to_vector() ==
        model.parameters().get("decoder/embedding/weight").value.to_vector());
  // An untied architecture does not read a tied file, and the reverse: named, not guessed.
  model::Seq2Seq other(untied);
  CHECK_THROWS_WITH(model::read_parameters(tensors, "tied.heed", other.parameters()),
                    Catch::Contains("'decoder/output/weight' is missing"));
}

TEST_CASE(
    "check_architecture: a config that claims more than the tensors hold is refused before "
    "anything is built",
    "[model][fast]") {
  model::ModelFile file = tiny(1);
  CHECK_NOTHROW(model::check_architecture(file.config, file.tensors, "m.heed"));
  model::ModelConfig layers = file.config;
  layers.encoder_layers = 64;  // within heed-train's bounds, not in the file
  CHECK_THROWS_WITH(model::check_architecture(layers, file.tensors, "m.heed"),
                    Catch::Contains("m.heed: the config says 64 encoder and 1 decoder layers, the "
                                    "file holds 1 and 1"));
  model::ModelConfig wide = file.config;
  wide.hidden = 60000;
  CHECK_THROWS_WITH(model::check_architecture(wide, file.tensors, "m.heed"),
                    Catch::Contains("'decoder/rnn_0/weight_hh' has shape") &&
                        Catch::Contains("(cell, hidden) says [240000, 60000]"));
  model::ModelConfig embed = file.config;
  embed.embed = 5;
  CHECK_THROWS_WITH(model::check_architecture(embed, file.tensors, "m.heed"),
                    Catch::Contains("encoder/embedding/weight"));
  // Beyond heed-train's bounds the config itself is invalid (a model file cannot claim it).
  model::ModelConfig huge = file.config;
  huge.decoder_layers = 1000000;
  CHECK_THROWS_WITH(huge.validate(), Catch::Contains("--decoder-layers must be at most 64"));
}

TEST_CASE("read_parameters: a tensor of the wrong type names the model file and the tensor",
          "[model][fast]") {
  const model::ModelFile file = tiny(1);
  io::SafeTensors tensors;
  for (const io::StoredTensor& t : file.tensors.tensors()) {
    if (t.name != "bridge/bias") {
      tensors.add(t);
      continue;
    }
    const std::vector<int32_t> ints(size_t(t.numel()), 1);
    tensors.add_i32(t.name, t.shape, ints.data());
  }
  model::Seq2Seq net(file.config);
  CHECK_THROWS_WITH(model::read_parameters(tensors, "typed.heed", net.parameters()),
                    Catch::Contains("typed.heed: ") && Catch::Contains("bridge/bias"));
}
