#include "heed/train/memory.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "heed/common/error.h"
#include "heed/common/rng.h"
#include "heed/model/seq2seq.h"

using namespace heed;

namespace {
std::vector<model::Example> make_examples(size_t n, int longest) {
  Rng rng = make_rng(3);
  std::uniform_int_distribution<int> len(1, longest);
  std::vector<model::Example> data(n);
  for (auto& e : data) {
    e.src.assign(size_t(len(rng)), 5);
    e.tgt.assign(size_t(len(rng)), 6);
  }
  return data;
}
}  // namespace

TEST_CASE("training memory: the largest batch bounds every batch the batcher plans",
          "[train][fast]") {
  const auto data = make_examples(500, 40);
  for (int64_t tokens : {0, 300, 41}) {
    train::BatcherOptions options;
    options.max_sentences = 24;
    options.max_tokens = tokens;
    options.bucket_batches = 4;
    const train::BatchBound bound = train::largest_batch(data, options);
    CHECK(bound.rows == 24);
    CHECK(bound.src_tokens == (tokens == 0 ? 24 * 40 : std::max<int64_t>(tokens, 40)));
    int64_t most_src = 0, most_tgt = 0;
    for (int64_t epoch = 0; epoch < 3; ++epoch) {
      for (const auto& indices : train::plan_epoch(data, options, 9, epoch)) {
        const train::Batch batch = train::make_batch(data, indices);
        CHECK(batch.size <= bound.rows);
        CHECK(batch.src_len <= bound.src_len);
        CHECK(batch.tgt_len <= bound.tgt_len);
        most_src = std::max(most_src, batch.size * batch.src_len);
        most_tgt = std::max(most_tgt, batch.size * batch.tgt_len);
      }
    }
    CHECK(most_src <= bound.src_tokens);
    CHECK(most_tgt <= bound.tgt_tokens);
    // The bound is reached, or nearly: no more than one longest sentence's worth above.
    CHECK(most_src + bound.src_len > bound.src_tokens / 2);
  }
  // Fewer examples than --batch-size: the batch is the corpus.
  train::BatcherOptions options;
  options.max_sentences = 1000000000;
  CHECK(train::largest_batch(make_examples(7, 5), options).rows == 7);
}

TEST_CASE("training memory: activations grow with the batch, the lengths and the vocabulary",
          "[train][fast]") {
  model::ModelConfig config;
  config.src_vocab_size = config.tgt_vocab_size = 8000;
  const auto bound = [](int64_t rows, int64_t src_len, int64_t tgt_len) {
    return train::BatchBound{rows, src_len, tgt_len, rows * src_len, rows * tgt_len};
  };
  const attention::ResolvedAttention attention = config.validate();
  const auto bytes = [&](const train::BatchBound& batch) {
    return train::activation_bytes(config, attention, batch);
  };
  const double base = bytes(bound(64, 50, 51));
  CHECK(base > 4.0 * 64 * 51 * 3 * 8000);  // at least the output layer's three [N·T, V] tensors
  CHECK(bytes(bound(128, 50, 51)) == Approx(2 * base));
  CHECK(bytes(bound(64, 100, 51)) > base);
  config.tgt_vocab_size = 16000;
  CHECK(bytes(bound(64, 50, 51)) > base);
  // Absurd sizes give a large number, not an overflow.
  const int64_t huge = int64_t(1) << 40;
  CHECK(bytes({huge, huge, huge, huge, huge}) > 1e20);
}

TEST_CASE("training memory: every additive-family mechanism is estimated with its tanh per unit",
          "[train][fast]") {
  // The estimate asks the mechanism's traits, not its name: normed-additive and coverage keep
  // additive's N·T·S·A activations too (a comparison with "additive" missed them).
  const train::BatchBound batch{64, 50, 51, 64 * 50, 64 * 51};
  const auto bytes = [&](const std::string& name) {
    model::ModelConfig config;
    config.src_vocab_size = config.tgt_vocab_size = 8000;
    config.attention = name;
    const attention::ResolvedAttention attention = config.validate();
    return train::activation_bytes(config, attention, batch);
  };
  const double dot = bytes("dot");
  const double per_unit = 4.0 * 64 * 51 * 50 * double(model::ModelConfig().hidden);
  for (const std::string name : {"additive", "mlp", "normed-additive", "coverage"}) {
    INFO(name);
    CHECK(bytes(name) >= dot + per_unit);
  }
  for (const std::string name : {"general", "scaled-dot", "location"}) {
    INFO(name);
    CHECK(bytes(name) < dot + per_unit);
  }
}

TEST_CASE("parameter limit: a model past it is refused before it is allocated", "[train][fast]") {
  model::ModelConfig config;
  config.hidden = 16;
  config.embed = 8;
  config.src_vocab_size = config.tgt_vocab_size = 50;
  const int64_t size = model::Seq2Seq(config).parameters().numel();
  CHECK_NOTHROW(model::Seq2Seq(config, onednn::Precision::kF32, {size, "too large"}));
  try {
    model::Seq2Seq(config, onednn::Precision::kF32, {size - 1, "too large for the test"});
    FAIL("a model one parameter past its limit was built");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("too large for the test (passed at 'decoder/output/"));
  }
}
