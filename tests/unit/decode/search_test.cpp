#include "heed/decode/search.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <set>

#include "heed/common/error.h"
#include "support/scripted_scorer.h"

using namespace heed;
using namespace heed::test;
using decode::DecodeConfig;

namespace {

// After <s>: A 0.6, B 0.4. After A: A, B, C, </s> 0.25 each. After B: </s> 0.9, C 0.1.
// Greedy takes A then </s> (0.6·0.25 = 0.15); the best sentence is B </s> (0.4·0.9 = 0.36).
std::vector<float> garden_path(int, const std::vector<int32_t>& prefix) {
  if (prefix.empty()) return dist({{kA, 0.6f}, {kB, 0.4f}});
  if (prefix == std::vector<int32_t>{kA})
    return dist({{kA, 0.25f}, {kB, 0.25f}, {kC, 0.25f}, {kEos, 0.25f}});
  if (prefix == std::vector<int32_t>{kB}) return dist({{kEos, 0.9f}, {kC, 0.1f}});
  return dist({{kEos, 1.0f}});
}

DecodeConfig plain(int beam) {
  DecodeConfig c;
  c.beam_size = beam;
  c.normalization = decode::LengthNormalization::kNone;
  return c;
}

}  // namespace

TEST_CASE("search: beam finds the best path that greedy misses", "[decode][fast]") {
  ScriptedScorer greedy_scorer(garden_path, {5});
  auto greedy = decode::search(greedy_scorer, 1, plain(1));
  REQUIRE(greedy[0].size() == 1);
  CHECK(greedy[0][0].tokens.front() == kA);
  ScriptedScorer beam_scorer(garden_path, {5});
  auto beam = decode::search(beam_scorer, 1, plain(2));
  REQUIRE(beam[0].size() == 1);
  CHECK(beam[0][0].tokens == std::vector<int32_t>{kB});
  CHECK(beam[0][0].log_prob == Approx(std::log(0.4 * 0.9)));
  CHECK(beam[0][0].finished);
}

TEST_CASE("search: n-best lists are sorted and distinct", "[decode][fast]") {
  DecodeConfig config = plain(4);
  config.n_best = 4;
  ScriptedScorer scorer(garden_path, {5});
  auto result = decode::search(scorer, 1, config);
  REQUIRE(result[0].size() == 4);
  // B </s> 0.36; A </s> 0.15; then A A </s>, A B </s>, A C </s> at 0.15 each (ties by token).
  CHECK(result[0][0].tokens == std::vector<int32_t>{kB});
  CHECK(result[0][1].tokens == std::vector<int32_t>{kA});
  CHECK(result[0][1].log_prob == Approx(std::log(0.15)));
  for (size_t i = 1; i < 4; ++i) CHECK(result[0][i - 1].score >= result[0][i].score);
  CHECK(result[0][2].tokens != result[0][3].tokens);
}

TEST_CASE("search: length normalization changes the winner", "[decode][fast]") {
  // Short: </s> at once with 0.3. Long: A A A A </s>, each step 0.7 (0.7^5 = 0.168).
  auto table = [](int, const std::vector<int32_t>& prefix) {
    if (prefix.size() < 4)
      return prefix.empty() ? dist({{kEos, 0.3f}, {kA, 0.7f}}) : dist({{kA, 0.7f}, {kEos, 0.3f}});
    return dist({{kEos, 0.7f}, {kA, 0.3f}});
  };
  DecodeConfig raw = plain(3);
  ScriptedScorer s1(table, {4});
  CHECK(decode::search(s1, 1, raw)[0][0].tokens.empty());
  DecodeConfig average = raw;
  average.normalization = decode::LengthNormalization::kAverage;
  ScriptedScorer s2(table, {4});
  auto best = decode::search(s2, 1, average)[0][0];
  CHECK(best.tokens.size() == 4);
  CHECK(best.score == Approx(std::log(0.168070) / 5).epsilon(1e-4));
  CHECK(decode::normalized_score(-2.0f, 5, DecodeConfig{}) ==
        Approx(-2.0 / std::pow(10.0 / 6.0, 0.6)));
}

TEST_CASE("search: maximum and minimum length", "[decode][fast]") {
  DecodeConfig config = plain(1);
  config.min_length = 3;
  config.max_length_ratio = 1.0f;
  config.max_length_offset = 2;
  // Greedy never picks </s>; the output is cut at 1·3 + 2 = 5 tokens and marked unfinished.
  ScriptedScorer s1(
      [](int, const std::vector<int32_t>&) {
        return dist({{kA, 0.9f}, {kEos, 0.1f}});
      },
      {3});
  auto cut = decode::search(s1, 1, config)[0][0];
  CHECK(cut.tokens.size() == 5);
  CHECK_FALSE(cut.finished);
  // </s> is likely at once, but not allowed before 3 tokens.
  ScriptedScorer s2(
      [](int, const std::vector<int32_t>&) {
        return dist({{kEos, 0.9f}, {kB, 0.1f}});
      },
      {3});
  auto early = decode::search(s2, 1, config)[0][0];
  CHECK(early.tokens == std::vector<int32_t>{kB, kB, kB});
  CHECK(early.finished);
}

TEST_CASE("search: a batch gives what each sentence gives alone", "[decode][fast]") {
  // Sentence 0 follows the garden path, sentence 1 prefers C C </s>.
  auto table = [](int sentence, const std::vector<int32_t>& prefix) {
    if (sentence == 0) return garden_path(0, prefix);
    if (prefix.size() < 2) return dist({{kC, 0.8f}, {kEos, 0.2f}});
    return dist({{kEos, 1.0f}});
  };
  DecodeConfig config = plain(3);
  config.n_best = 2;
  ScriptedScorer both(table, {4, 6});
  auto batch = decode::search(both, 2, config);
  for (int s = 0; s < 2; ++s) {
    ScriptedScorer alone([&](int, const std::vector<int32_t>& p) { return table(s, p); },
                         {s == 0 ? 4 : 6});
    auto single = decode::search(alone, 1, config);
    REQUIRE(single[0].size() == batch[static_cast<size_t>(s)].size());
    for (size_t i = 0; i < single[0].size(); ++i) {
      CHECK(single[0][i].tokens == batch[static_cast<size_t>(s)][i].tokens);
      CHECK(single[0][i].log_prob == Approx(batch[static_cast<size_t>(s)][i].log_prob));
    }
  }
  CHECK(batch[1][0].tokens == std::vector<int32_t>{kC, kC});
  CHECK(both.max_rows_ <= 6);
}

TEST_CASE("search: attention rows are kept per token; coverage penalty", "[decode][fast]") {
  DecodeConfig config = plain(2);
  config.keep_attention = true;
  ScriptedScorer scorer(garden_path, {3});
  auto best = decode::search(scorer, 1, config)[0][0];
  REQUIRE(best.attention.size() == best.tokens.size() + 1);  // one row per token and </s>
  CHECK(best.attention[0] == std::vector<float>{1, 0, 0});
  CHECK(best.attention[1] == std::vector<float>{0, 1, 0});
  // B </s> covers source positions 0 and 1 but not 2: the coverage penalty lowers its score.
  config.coverage_penalty = 0.2f;
  ScriptedScorer penalized(garden_path, {3});
  auto with_penalty = decode::search(penalized, 1, config)[0][0];
  CHECK(with_penalty.score < best.score);
  DecodeConfig bad;
  bad.n_best = 6;
  CHECK_THROWS_AS(bad.validate(), ConfigError);
  CHECK_THROWS_AS(decode::parse_normalization("log"), ConfigError);
}

TEST_CASE("search: the beam's limit is the config's, not only the tool's", "[decode][fast]") {
  DecodeConfig widest = plain(decode::kMaxBeamSize);
  widest.n_best = decode::kMaxBeamSize;
  CHECK_NOTHROW(widest.validate());
  DecodeConfig wider = plain(decode::kMaxBeamSize + 1);
  CHECK_THROWS_WITH(wider.validate(), "--beam-size must be at most 1000");
  CHECK_THROWS_WITH(plain(0).validate(), "--beam-size must be at least 1");
}

// The per-row top-n scan (it skips 64-column blocks that cannot enter) against a plain sort, on
// rows of every width around the block size, with ties, an excluded token and a shortlist's ids.
TEST_CASE("search: the best continuations of a row are those of a full sort", "[decode][fast]") {
  std::mt19937 rng(5);
  for (const int columns : {1, 7, 63, 64, 65, 128, 200, 1000}) {
    for (const size_t n : {size_t(1), size_t(3), size_t(10)}) {
      for (const bool shortlist : {false, true}) {
        // The best value planted nowhere, then at each block's first and last column and at the
        // row's end: where a block skip would go wrong.
        std::vector<int> planted = {-1, columns - 1};
        for (int b = 64; b < columns; b += 64) {
          planted.push_back(b - 1);
          planted.push_back(b);
        }
        for (const int best : planted) {
          std::vector<float> log_probs(static_cast<size_t>(columns));
          std::uniform_int_distribution<int> level(4, 40);  // coarse values: many ties
          for (float& x : log_probs) x = -0.25f * float(level(rng));
          if (best >= 0) log_probs[size_t(best)] = 0.f;
          std::vector<int32_t> ids(static_cast<size_t>(columns));
          for (int v = 0; v < columns; ++v) ids[size_t(v)] = shortlist ? 3 * v + 1 : v;
          const int32_t excluded = ids[size_t(columns / 2)];
          std::vector<decode::Candidate> got = {{-100.f, 0, 0}};  // rows before this one stay
          decode::add_best_of_row(log_probs.data(), columns, shortlist ? ids.data() : nullptr,
                                  -1.5f, 2, excluded, n, got);
          std::vector<decode::Candidate> all;
          for (int v = 0; v < columns; ++v) {
            if (ids[size_t(v)] != excluded)
              all.push_back({-1.5f + log_probs[size_t(v)], 2, ids[size_t(v)]});
          }
          std::sort(all.begin(), all.end());
          all.resize(std::min(all.size(), n));
          INFO("columns " << columns << ", n " << n << ", shortlist " << shortlist << ", best at "
                          << best);
          REQUIRE(got.size() == all.size() + 1);
          for (size_t i = 0; i < all.size(); ++i) {
            CHECK(got[i + 1].token == all[i].token);
            CHECK(got[i + 1].total == all[i].total);
          }
        }
      }
    }
  }
}

namespace {

DecodeConfig sampling(const std::string& spec, std::uint64_t seed = 1, float temperature = 1.0f) {
  DecodeConfig c = plain(1);
  c.sampling = decode::parse_sampling(spec);
  c.sampling.seed = seed;
  c.sampling.temperature = temperature;
  return c;
}

// A, B and C equally likely for 12 tokens, then </s>: 3^12 outputs, so two streams agree by
// chance once in half a million.
std::vector<float> uniform_abc(int, const std::vector<int32_t>& prefix) {
  if (prefix.size() < 12) return dist({{kA, 1 / 3.f}, {kB, 1 / 3.f}, {kC, 1 / 3.f}});
  return dist({{kEos, 1.0f}});
}

// A 0.5, B 0.3, C 0.15, </s> 0.05 for 6 tokens, then </s>.
std::vector<float> skewed(int, const std::vector<int32_t>& prefix) {
  if (prefix.size() < 6) return dist({{kA, 0.5f}, {kB, 0.3f}, {kC, 0.15f}, {kEos, 0.05f}});
  return dist({{kEos, 1.0f}});
}

// The tokens of sentence s's one hypothesis.
std::vector<int32_t> tokens_of(const std::vector<std::vector<decode::Hypothesis>>& result,
                               size_t s) {
  REQUIRE(result[s].size() == 1);
  return result[s][0].tokens;
}

}  // namespace

TEST_CASE("search: make_search follows the configuration", "[decode][sampling][fast]") {
  CHECK(dynamic_cast<decode::GreedySearch*>(decode::make_search(plain(1)).get()));
  CHECK(dynamic_cast<decode::BeamSearch*>(decode::make_search(plain(4)).get()));
  CHECK(dynamic_cast<decode::SamplingSearch*>(decode::make_search(sampling("topk:3")).get()));
  // Sampling draws one hypothesis: with a beam it is refused, naming both options.
  DecodeConfig beam = sampling("full");
  beam.beam_size = 5;
  CHECK_THROWS_WITH(beam.validate(),
                    "--sampling draws one translation per line: it needs --beam-size 1, not 5");
}

TEST_CASE("search: a strategy that chooses nothing is a bug, not a lost sentence",
          "[decode][fast]") {
  struct Nothing final : decode::SearchStrategy {
    void choose(const decode::SentenceStep&, std::vector<decode::Candidate>&) override {}
  } nothing;
  ScriptedScorer scorer(garden_path, {3});
  CHECK_THROWS_AS(decode::search(scorer, 1, plain(1), nothing), InternalError);
}

TEST_CASE("search: sampling is seeded", "[decode][sampling][fast]") {
  const auto run = [](std::uint64_t seed) {
    ScriptedScorer scorer(uniform_abc, {5});
    return decode::search(scorer, 1, sampling("full", seed));
  };
  const auto first = run(1);
  CHECK(tokens_of(first, 0).size() == 12);
  CHECK(first[0][0].log_prob == Approx(12 * std::log(1 / 3.0)));  // the model's, untempered
  CHECK(first[0][0].finished);
  CHECK(tokens_of(run(1), 0) == tokens_of(first, 0));
  CHECK(tokens_of(run(2), 0) != tokens_of(first, 0));
}

TEST_CASE("search: a sentence's draws depend on its stream, not on its batch",
          "[decode][sampling][fast]") {
  const DecodeConfig config = sampling("topk:2", 42);
  ScriptedScorer batch_scorer(uniform_abc, {4, 9, 2});
  decode::SamplingSearch batch_strategy(config.sampling, {10, 11, 12});
  const auto batch = decode::search(batch_scorer, 3, config, batch_strategy);
  CHECK(tokens_of(batch, 0) != tokens_of(batch, 1));
  CHECK(tokens_of(batch, 1) != tokens_of(batch, 2));
  for (size_t s = 0; s < 3; ++s) {
    ScriptedScorer alone_scorer(uniform_abc, {5});
    decode::SamplingSearch alone_strategy(config.sampling, {10 + s});
    INFO("sentence " << s);
    CHECK(tokens_of(decode::search(alone_scorer, 1, config, alone_strategy), 0) ==
          tokens_of(batch, s));
  }
}

TEST_CASE("search: one strategy serves a run's batches, each on its streams",
          "[decode][sampling][fast]") {
  // As the Translator runs it: built once, told each batch's streams (line numbers) before it.
  const DecodeConfig config = sampling("topk:2", 42);
  const std::unique_ptr<decode::SearchStrategy> run = decode::make_search(config);
  std::vector<std::vector<int32_t>> batched;
  for (const std::vector<std::uint64_t>& streams :
       std::vector<std::vector<std::uint64_t>>{{10, 11}, {12}}) {
    ScriptedScorer scorer(uniform_abc, std::vector<int>(streams.size(), 5));
    run->start_batch(streams);
    const auto result = decode::search(scorer, int(streams.size()), config, *run);
    for (size_t s = 0; s < streams.size(); ++s) batched.push_back(tokens_of(result, s));
  }
  for (std::uint64_t line = 10; line <= 12; ++line) {
    ScriptedScorer alone(uniform_abc, {5});
    decode::SamplingSearch strategy(config.sampling, {line});
    INFO("stream " << line);
    CHECK(tokens_of(decode::search(alone, 1, config, strategy), 0) == batched[line - 10]);
  }
  // Without the batch's streams a strategy that draws cannot choose: a bug, said.
  decode::SamplingSearch untold(config.sampling);
  ScriptedScorer scorer(uniform_abc, {5});
  CHECK_THROWS_AS(decode::search(scorer, 1, config, untold), InternalError);
}

TEST_CASE("search: sampled tokens stay in the top-k and the nucleus", "[decode][sampling][fast]") {
  constexpr int kSentences = 200;  // one stream each
  const std::vector<std::pair<std::string, std::set<int32_t>>> cases = {
      {"topk:1", {kA}},
      {"topk:2", {kA, kB}},
      {"topk:3", {kA, kB, kC}},
      {"nucleus:0.45", {kA}},
      {"nucleus:0.75", {kA, kB}},
      {"nucleus:0.9", {kA, kB, kC}},
      {"full", {kA, kB, kC, kEos}}};
  for (const auto& [spec, expected] : cases) {
    ScriptedScorer scorer(skewed, std::vector<int>(kSentences, 5));
    const auto result = decode::search(scorer, kSentences, sampling(spec));
    // The tokens drawn before the end (</s> ends a hypothesis: it counts when one is short).
    std::set<int32_t> drawn;
    for (size_t s = 0; s < kSentences; ++s) {
      const std::vector<int32_t> tokens = tokens_of(result, s);
      drawn.insert(tokens.begin(), tokens.end());
      if (tokens.size() < 6) drawn.insert(kEos);
    }
    INFO(spec);
    CHECK(drawn == expected);
  }
}

TEST_CASE("search: sampling near temperature 0 is greedy search", "[decode][sampling][fast]") {
  // Distinct probabilities at every step (ties would be drawn at random, not by token order).
  const auto table = [](int, const std::vector<int32_t>& prefix) {
    const int32_t best = prefix.size() % 2 ? kB : kC;
    if (prefix.size() < 5) return dist({{best, 0.4f}, {kA, 0.35f}, {kEos, 0.25f}});
    return dist({{kEos, 0.6f}, {kA, 0.4f}});
  };
  ScriptedScorer greedy_scorer(table, {3});
  const auto greedy = decode::search(greedy_scorer, 1, plain(1));
  CHECK(tokens_of(greedy, 0) == std::vector<int32_t>{kC, kB, kC, kB, kC});
  for (const char* spec : {"full", "topk:2", "nucleus:0.9"}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      ScriptedScorer scorer(table, {3});
      const auto cold = decode::search(scorer, 1, sampling(spec, seed, 1e-3f));
      INFO(spec << ", seed " << seed);
      CHECK(tokens_of(cold, 0) == tokens_of(greedy, 0));
      CHECK(cold[0][0].log_prob == greedy[0][0].log_prob);
    }
  }
}

TEST_CASE("search: sampling keeps --min-length and draws from a shortlist only",
          "[decode][sampling][fast]") {
  constexpr int kSentences = 50;
  const auto table = [](int, const std::vector<int32_t>&) {
    return dist({{kEos, 0.5f}, {kA, 0.2f}, {kB, 0.2f}, {kC, 0.1f}});
  };
  DecodeConfig config = sampling("full");
  config.min_length = 2;
  ScriptedScorer scorer(table, std::vector<int>(kSentences, 4));
  scorer.set_shortlist({kEos, kA, kC});  // </s> is column 0, excluded before 2 tokens
  const auto result = decode::search(scorer, kSentences, config);
  std::set<int32_t> drawn;
  for (size_t s = 0; s < kSentences; ++s) {
    const std::vector<int32_t> tokens = tokens_of(result, s);
    CHECK(tokens.size() >= 2);
    drawn.insert(tokens.begin(), tokens.end());
  }
  CHECK(drawn == std::set<int32_t>{kA, kC});
}
