// The library Translator: forced attention (what heed-align reads) against the attention the
// search itself recorded, batching that changes nothing, and the refusals.
#include "heed/decode/translator.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/model/serialize.h"
#include "heed/onednn/context.h"

using namespace heed;

namespace {

const char* const kWords[] = {"a", "b", "c", "d", "e", "f", "g", "h"};

// A random model over the words a … h on both sides, whitespace tokens (no tokenizer).
model::ModelFile random_model(const std::string& attention) {
  text::CountList counts;
  for (const char* w : kWords) counts.push_back({w, 1});
  model::ModelFile file;
  file.src_vocab = text::Vocab::from_counts(counts);
  file.tgt_vocab = text::Vocab::from_counts(counts);
  file.config.attention = attention;
  file.config.embed = 8;
  file.config.hidden = 8;
  file.config.src_vocab_size = file.src_vocab.size();
  file.config.tgt_vocab_size = file.tgt_vocab.size();
  model::Seq2Seq model(file.config);
  model.initialize(11, 0.5f);
  model::write_parameters(model.parameters(), file.tensors);
  return file;
}

const std::vector<std::string> kSources = {"a b c d", "e f", "g h a b c", "d", "b c d e f g"};

}  // namespace

TEST_CASE("translator: forced attention of the greedy output is the attention the search saw",
          "[decode][fast]") {
  onednn::set_threads(1);
  decode::TranslationOptions options;
  options.decode.beam_size = 1;
  options.decode.max_length_ratio = 1.5f;
  options.decode.max_length_offset = 2;
  options.alignment = decode::AlignmentOutput::kSoft;
  decode::Translator translator(random_model("general"), "random", options);
  REQUIRE(translator.pretokenized());
  std::vector<std::string> outputs;
  std::optional<DataError> too_long;
  translator.translate(kSources, 1, "input", outputs, too_long);
  REQUIRE(outputs.size() == kSources.size());
  std::vector<std::string> targets;
  std::vector<std::vector<std::vector<float>>> search_rows;
  for (const std::string& out : outputs) {
    const size_t bar = out.find(" ||| ");
    REQUIRE(bar != std::string::npos);
    targets.push_back(out.substr(0, bar));
    // "0.120,0.880 0.500,0.500": one row per output token, 3 decimals.
    std::vector<std::vector<float>> rows;
    const std::string soft = out.substr(bar + 5);
    for (std::string_view row : split_whitespace(soft)) {
      std::vector<float> values;
      for (const std::string& v : split(std::string(row), ",")) values.push_back(std::stof(v));
      rows.push_back(values);
    }
    search_rows.push_back(rows);
  }
  const auto pairs = translator.attend(kSources, targets, 1, "input");
  REQUIRE(pairs.size() == kSources.size());
  int compared = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    INFO("pair " << i << ": " << kSources[i] << " → " << targets[i]);
    CHECK(pairs[i].id == long(i));
    CHECK(pairs[i].source == split(kSources[i], " "));
    if (targets[i].empty()) {  // the search ended at once: nothing to force-decode
      CHECK(pairs[i].weights.empty());
      continue;
    }
    REQUIRE(pairs[i].weights.size() == pairs[i].target.size() + 1);  // + the </s> step
    REQUIRE(search_rows[i].size() == pairs[i].target.size());
    for (size_t t = 0; t < search_rows[i].size(); ++t) {
      REQUIRE(pairs[i].weights[t].size() == pairs[i].source.size());
      for (size_t s = 0; s < pairs[i].source.size(); ++s) {
        CHECK(pairs[i].weights[t][s] == Approx(search_rows[i][t][s]).margin(6e-4));
        ++compared;
      }
    }
  }
  CHECK(compared > 40);
}

TEST_CASE("translator: forced attention does not depend on the batch", "[decode][fast]") {
  onednn::set_threads(1);
  const std::vector<std::string> targets = {"b a", "c c c", "d", "e f g h", "a"};
  decode::TranslationOptions one, all;
  one.batch_size = 1;
  all.batch_size = 5;
  decode::Translator alone(random_model("additive"), "random", one);
  decode::Translator batched(random_model("additive"), "random", all);
  const auto a = alone.attend(kSources, targets, 7, "input");
  const auto b = batched.attend(kSources, targets, 7, "input");
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].id == long(6 + i));
    REQUIRE(a[i].weights.size() == b[i].weights.size());
    for (size_t t = 0; t < a[i].weights.size(); ++t) {
      float sum = 0;
      for (size_t s = 0; s < a[i].weights[t].size(); ++s) {
        CHECK(a[i].weights[t][s] == Approx(b[i].weights[t][s]).margin(1e-6));
        sum += a[i].weights[t][s];
      }
      CHECK(sum == Approx(1.f).margin(1e-5));
    }
  }
}

TEST_CASE("translator: empty sides get no rows; models without weights are refused",
          "[decode][fast]") {
  onednn::set_threads(1);
  decode::Translator translator(random_model("dot"), "random", {});
  const auto pairs = translator.attend({"a b", "", "c"}, {"", "a", "d e"}, 1, "input");
  CHECK(pairs[0].weights.empty());
  CHECK(pairs[1].weights.empty());
  CHECK(pairs[2].weights.size() == 3);
  for (const char* attention : {"linear", "none"}) {
    decode::Translator no_weights(random_model(attention), "m.heed", {});
    CHECK_THROWS_WITH(no_weights.attend({"a"}, {"b"}, 1, "input"),
                      Catch::Contains("m.heed") && Catch::Contains("no weights"));
  }
}
