#include "heed/model/model_file.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "heed/common/error.h"
#include "support/files.h"
#include "support/temp_dir.h"
#include "support/tiny_model_file.h"

using namespace heed;

namespace {
model::ModelFile tiny() {
  return test::tiny_model_file();
}
std::string load_error(const std::string& path) {
  try {
    model::load_model(path);
  } catch (const FormatError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("model file: save and load keep config, vocabularies, tensors, extras", "[io][fast]") {
  test::TempDir dir;
  model::save_model(dir.path("m"), tiny());
  model::ModelFile back = model::load_model(dir.path("m"));
  CHECK(back.config.to_json() == tiny().config.to_json());
  CHECK(back.src_vocab.to_string() == tiny().src_vocab.to_string());
  CHECK(back.tgt_vocab.id("hello") == 4);
  CHECK(back.tensors.get("decoder/output/bias").as_f32()[7] == 8.0f);
  CHECK(back.extra.at("bpe_codes") == "#version: 0.2\na b\n");
  CHECK(back.extra.count("checksum") == 0);
}

TEST_CASE("model file: truncated, corrupt, foreign and newer files fail clearly", "[io][fast]") {
  test::TempDir dir;
  model::save_model(dir.path("m"), tiny());
  const std::string good = test::read_file(dir.path("m"));

  test::write_file(dir.path("truncated"), good.substr(0, good.size() - 5));
  CHECK_THROWS_WITH(model::load_model(dir.path("truncated")), Catch::Contains("truncated"));

  std::string flipped = good;
  flipped[flipped.size() - 2] ^= 0x40;  // one bit of tensor data
  test::write_file(dir.path("flipped"), flipped);
  CHECK(load_error(dir.path("flipped")).find("checksum") != std::string::npos);

  test::write_file(dir.path("codes"), "#version: 0.2\ne s\n");
  CHECK(load_error(dir.path("codes")).find("codes") != std::string::npos);

  io::SafeTensors foreign;
  const float x = 1;
  foreign.add_f32("w", {1}, &x);
  foreign.save(dir.path("foreign"));
  CHECK(load_error(dir.path("foreign")).find("not a heed model") != std::string::npos);

  std::string newer = good;
  const std::string current =
      "\"format_version\":\"" + std::to_string(model::kModelFormatVersion) + "\"";
  size_t pos = newer.find(current);
  REQUIRE(pos != std::string::npos);
  newer.replace(pos, current.size(), "\"format_version\":\"9\"");
  test::write_file(dir.path("newer"), newer);
  CHECK(load_error(dir.path("newer"))
            .find("version 9, newer than this heed reads (" +
                  std::to_string(model::kModelFormatVersion) + ")") != std::string::npos);

  // Versions that are not plain digits are malformed, not read as their leading number.
  for (const std::string bad : {"2abc", "2.9", " 2"}) {
    io::SafeTensors odd = io::SafeTensors::load(dir.path("m"));
    odd.set_metadata("format_version", bad);
    odd.save(dir.path("odd"));
    INFO(bad);
    CHECK(load_error(dir.path("odd")).find("malformed format_version '" + bad + "'") !=
          std::string::npos);
  }

  CHECK_THROWS_AS(model::load_model(dir.path("absent")), FileError);
}

TEST_CASE("model file: a changed byte in the metadata is refused; files without its checksum load",
          "[io][fast]") {
  test::TempDir dir;
  model::save_model(dir.path("m"), tiny());
  const std::string good = test::read_file(dir.path("m"));

  std::string renamed = good;  // "hallo" becomes "hullo": valid JSON, valid vocabulary
  size_t pos = renamed.find("hallo");
  REQUIRE(pos != std::string::npos);
  renamed[pos + 1] = 'u';
  test::write_file(dir.path("renamed"), renamed);
  CHECK_THAT(load_error(dir.path("renamed")), Catch::Contains("checksum of its metadata"));

  // Written before the metadata checksum existed (same length: the header keeps its size).
  std::string older = good;
  pos = older.find("\"metadata_checksum\"");
  REQUIRE(pos != std::string::npos);
  older.replace(pos, 19, "\"metadata_checksuM\"");
  test::write_file(dir.path("older"), older);
  CHECK(model::load_model(dir.path("older")).extra.count("metadata_checksuM") == 1);
}

TEST_CASE("model file: a recorded tokenizer heed-tokenize does not know makes the file invalid",
          "[io][fast]") {
  test::TempDir dir;
  const auto with = [&](const std::string& key, const std::string& value) {
    model::ModelFile file = tiny();
    file.extra["tokenizer_mode"] = "aggressive";
    file.extra[key] = value;
    model::save_model(dir.path("m"), file);
    return load_error(dir.path("m"));
  };
  CHECK(with("tokenizer_lowercase", "1").empty());
  CHECK(with("tokenizer_normalization", "nfkc").empty());
  CHECK_THAT(with("tokenizer_mode", "bogus"),
             Catch::StartsWith("'" + dir.path("m") +
                               "' is invalid: tokenizer_mode: unknown "
                               "tokenization mode 'bogus'"));
  CHECK_THAT(with("tokenizer_normalization", "nfd"),
             Catch::Contains("is invalid: tokenizer_normalization: unknown normalization 'nfd'"));
  for (const char* flag : {"maybe", "1x", "2", ""}) {
    CHECK_THAT(with("tokenizer_case_feature", flag),
               Catch::EndsWith("is invalid: tokenizer_case_feature is '" + std::string(flag) +
                               "', not 0 or 1"));
  }
}

TEST_CASE("model file: a moving average of the weights says so; other values are refused",
          "[io][fast]") {
  test::TempDir dir;
  model::ModelFile averaged = tiny();
  averaged.moving_average = true;
  model::save_model(dir.path("avg"), averaged);
  CHECK(model::load_model(dir.path("avg")).moving_average);
  CHECK(model::load_model(dir.path("avg")).extra.count(model::kWeightsKey) == 0);
  model::save_model(dir.path("live"), tiny());
  CHECK_FALSE(model::load_model(dir.path("live")).moving_average);
  // Reserved: the tools cannot set it as metadata of their own.
  model::ModelFile other = tiny();
  other.extra[model::kWeightsKey] = "moving-average";
  CHECK_THROWS_AS(model::save_model(dir.path("x"), other), InternalError);
}
