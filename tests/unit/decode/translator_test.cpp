// The library Translator: forced attention (what heed-align reads) against the attention the
// search itself recorded (under every decoder), batching that changes nothing, the refusals, the
// lexical shortlist (with every word it changes nothing; otherwise only its words come out), and
// the alignment formats after a translation.
#include "heed/decode/translator.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "heed/align/alignment.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/model/serialize.h"
#include "heed/onednn/context.h"
#include "support/files.h"
#include "support/temp_dir.h"

using namespace heed;

namespace {

const char* const kWords[] = {"a", "b", "c", "d", "e", "f", "g", "h"};

// A random model over the words a … h on both sides, whitespace tokens (no tokenizer).
model::ModelFile random_model(const std::string& attention,
                              model::DecoderType decoder = model::DecoderType::kLuong) {
  text::CountList counts;
  for (const char* w : kWords) counts.push_back({w, 1});
  model::ModelFile file;
  file.src_vocab = text::Vocab::from_counts(counts);
  file.tgt_vocab = text::Vocab::from_counts(counts);
  file.config.attention = attention;
  file.config.decoder = decoder;
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
  const auto decoder = GENERATE(model::DecoderType::kLuong, model::DecoderType::kBahdanau,
                                model::DecoderType::kConcat);
  INFO(model::to_string(decoder));
  decode::TranslationOptions options;
  options.decode.beam_size = 1;
  options.decode.max_length_ratio = 1.5f;
  options.decode.max_length_offset = 2;
  options.alignment = "soft";
  decode::Translator translator(random_model("general", decoder), "random", options);
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

namespace {

// Every line of kSources translated with options.
std::vector<std::string> translate_all(const decode::TranslationOptions& options) {
  decode::Translator translator(random_model("general"), "random", options);
  std::vector<std::string> outputs;
  std::optional<DataError> too_long;
  translator.translate(kSources, 1, "input", outputs, too_long);
  REQUIRE_FALSE(too_long);
  return outputs;
}

}  // namespace

TEST_CASE("translator: a shortlist holding every word translates byte for byte as without one",
          "[decode][fast]") {
  onednn::set_threads(1);
  test::TempDir dir;
  // Every source word translates to every target word, and no word is taken as frequent.
  std::string table;
  for (const char* from : kWords) {
    for (const char* to : kWords) table += std::string(from) + "\t" + to + "\t0.125\n";
  }
  decode::TranslationOptions options;
  options.batch_size = 2;
  for (int beam : {1, 3}) {
    for (const char* alignment : {"", "soft"}) {
      INFO("beam " << beam << ", alignment '" << alignment << "'");
      options.decode.beam_size = beam;
      options.decode.n_best = beam;
      options.alignment = alignment;
      options.shortlist = {};
      const std::vector<std::string> full = translate_all(options);
      options.shortlist.table = test::write_file(dir.path("every.tsv"), table);
      options.shortlist.frequent = 0;
      options.shortlist.best = 8;
      CHECK(translate_all(options) == full);
      // The same through the frequent words alone, with an empty table.
      options.shortlist.table = test::write_file(dir.path("empty.tsv"), "");
      options.shortlist.frequent = 8;
      CHECK(translate_all(options) == full);
    }
  }
}

TEST_CASE("translator: with a shortlist, outputs hold only the shortlist's words",
          "[decode][fast]") {
  onednn::set_threads(1);
  test::TempDir dir;
  decode::TranslationOptions options;
  options.batch_size = 1;
  options.decode.beam_size = 2;
  options.decode.min_length = 2;
  // No frequent words; a, b, c and d each translate to one word (the best of a's two), the
  // others to none: only those and the specials can come out.
  options.shortlist.table =
      test::write_file(dir.path("lex.tsv"), "a\tb\t0.9\na\tc\t0.1\nb\tc\t1\nc\td\t1\nd\ta\t1\n");
  options.shortlist.frequent = 0;
  options.shortlist.best = 1;
  options.shortlist.columns_multiple = 1;  // not filled up with frequent words
  const std::vector<std::vector<std::string>> allowed = {
      {"b", "c", "d", "a"}, {}, {"b", "c", "d"}, {"a"}, {"c", "d", "a"}};
  const std::vector<std::string> outputs = translate_all(options);
  REQUIRE(outputs.size() == kSources.size());
  int words = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    INFO(kSources[i] << " → " << outputs[i]);
    for (std::string_view word : split_whitespace(outputs[i])) {
      const bool special =
          std::find(std::begin(text::Vocab::kSpecials), std::end(text::Vocab::kSpecials), word) !=
          std::end(text::Vocab::kSpecials);
      const bool known =
          special || std::find(allowed[i].begin(), allowed[i].end(), word) != allowed[i].end();
      CHECK(known);
      ++words;
    }
  }
  CHECK(words > 0);
}

TEST_CASE("translator: a bad lexical table is refused naming its line", "[decode][fast]") {
  test::TempDir dir;
  decode::TranslationOptions options;
  options.shortlist.table = test::write_file(dir.path("lex.tsv"), "a\tb\t0.5\na\tb\n");
  CHECK_THROWS_WITH(decode::Translator(random_model("dot"), "random", options),
                    dir.path("lex.tsv") + ":2: expected 'source<TAB>target<TAB>probability'");
}

TEST_CASE("translator: the alignment formats of a translation follow ' ||| '", "[decode][fast]") {
  onednn::set_threads(1);
  decode::TranslationOptions options;
  options.decode.beam_size = 2;
  options.decode.min_length = 1;
  std::vector<std::vector<std::string>> outputs;
  for (const char* format : {"pharaoh", "talp", "soft"}) {
    options.alignment = format;
    outputs.push_back(translate_all(options));
  }
  int links = 0;
  for (size_t i = 0; i < kSources.size(); ++i) {
    std::vector<std::string> text, alignment;
    for (const auto& output : outputs) {
      const size_t bar = output[i].find(" ||| ");
      REQUIRE(bar != std::string::npos);
      text.push_back(output[i].substr(0, bar));
      alignment.push_back(output[i].substr(bar + 5));
    }
    INFO(kSources[i] << " → " << text[0] << " ||| " << alignment[0]);
    CHECK(text[1] == text[0]);
    CHECK(text[2] == text[0]);
    // The same links, one-based and all sure in talp.
    const align::Alignment pharaoh = align::parse_pharaoh(alignment[0], "pharaoh", 1);
    const align::GoldAlignment talp = align::parse_talp(alignment[1], "talp", 1);
    CHECK(talp.sure == pharaoh);
    CHECK(talp.possible == pharaoh);
    CHECK(split_whitespace(alignment[2]).size() == split_whitespace(text[0]).size());
    links += int(pharaoh.size());
  }
  CHECK(links >= int(kSources.size()));
  // jsonl is for force-decoded pairs; unknown names are refused.
  options.alignment = "jsonl";
  CHECK_THROWS_WITH(decode::Translator(random_model("dot"), "random", options),
                    Catch::Contains("heed-align extract --soft"));
  options.alignment = "hard";
  CHECK_THROWS_AS(decode::Translator(random_model("dot"), "random", options), ConfigError);
}
