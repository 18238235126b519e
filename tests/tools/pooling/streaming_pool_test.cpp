// The fused, streaming front end of heed-pooling (tools/pooling/streaming_pool): the same
// pooled vectors, attention weights and gradients as the unfused model (the step layer through
// oneDNN into a stored [T, N, W], then heed's FeedForwardPool or a mean) to 1e-5, on sequences
// long enough for the online softmax to rescale many times.
#include "pooling/streaming_pool.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "heed/common/error.h"
#include "pooling/task.h"

using heed::pooling::PoolingKind;
using heed::pooling::PoolingProblem;

namespace {

// Largest |a − b| / max(1, |b|) over two equally long arrays.
double max_relative_difference(const float* a, const float* b, int64_t n) {
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    worst = std::max(
        worst, std::fabs(double(a[i]) - double(b[i])) / std::max(1.0, std::fabs(double(b[i]))));
  }
  return worst;
}

// With every weight of model blown up 50 times (saturated scores), each sequence's largest
// attention weight over its smallest.
std::vector<double> saturated_weight_ratios(heed::pooling::PoolingModel& model,
                                            const heed::pooling::PoolingBatch& batch) {
  for (auto* p : model.parameters().all()) {
    for (int64_t i = 0; i < p->value.numel(); ++i) p->value.data()[i] *= 50.f;
  }
  model.weights_changed();
  std::vector<float> y;
  model.forward(batch, y);
  const std::vector<float> alpha = model.attention_weights();
  const int64_t steps = batch.inputs.dim(0), count = batch.inputs.dim(1);
  std::vector<double> ratios;
  for (int64_t n = 0; n < count; ++n) {
    const auto row = alpha.begin() + n * steps;
    const auto [lo, hi] = std::minmax_element(row, row + steps);
    ratios.push_back(double(*hi / *lo));
  }
  return ratios;
}

}  // namespace

TEST_CASE("streaming pool: matches the unfused model to 1e-5 (outputs and gradients)",
          "[pooling][grad]") {
  const auto task = heed::pooling::fixed_length_task(PoolingProblem::kAddition, 400);
  for (const auto kind : {PoolingKind::kFeedForwardAttention, PoolingKind::kMean}) {
    heed::Rng data_rng = heed::make_rng(9);
    const auto batch = heed::pooling::make_pooling_batch(task, 37, data_rng);
    const int64_t padded = task.padded_length();
    heed::Rng fused_rng = heed::make_rng(11), unfused_rng = heed::make_rng(11);
    heed::pooling::PoolingModel fused(kind, padded, 24, fused_rng, true);
    heed::pooling::PoolingModel unfused(kind, padded, 24, unfused_rng, false);
    // The same draws in the same order: the same weights.
    for (auto* p : fused.parameters().all()) {
      const auto* q = unfused.parameters().find(p->name);
      REQUIRE(q != nullptr);
      REQUIRE(p->value.to_vector() == q->value.to_vector());
    }
    // Sharper scores than the initial ones, so that the softmax is far from uniform.
    if (auto* w = fused.parameters().find("pool/w")) {
      for (int64_t i = 0; i < w->value.numel(); ++i) w->value.data()[i] *= 8.f;
      auto* v = unfused.parameters().find("pool/w");
      std::copy(w->value.data(), w->value.data() + w->value.numel(), v->value.data());
    }
    fused.weights_changed();
    unfused.weights_changed();
    std::vector<float> y_fused, y_unfused, d;
    fused.forward(batch, y_fused);
    unfused.forward(batch, y_unfused);
    CHECK(max_relative_difference(y_fused.data(), y_unfused.data(), 37) < 1e-5);
    heed::pooling::mean_squared_error(y_unfused, batch.targets, &d);
    fused.parameters().zero_grad();
    unfused.parameters().zero_grad();
    fused.backward(d);
    unfused.backward(d);
    for (auto* p : fused.parameters().all()) {
      const auto* q = unfused.parameters().find(p->name);
      // Relative to the gradient's own scale: the smallest entries are sums that cancel.
      double scale = 0;
      for (int64_t i = 0; i < q->grad.numel(); ++i) {
        scale = std::max(scale, std::fabs(double(q->grad.data()[i])));
      }
      double worst = 0;
      for (int64_t i = 0; i < q->grad.numel(); ++i) {
        worst = std::max(worst, std::fabs(double(p->grad.data()[i]) - double(q->grad.data()[i])));
      }
      INFO(heed::pooling::to_string(kind) << " " << p->name << ": " << worst << " of " << scale);
      CHECK(worst <= 1e-5 * std::max(scale, 1e-3));
    }
  }
}

TEST_CASE("streaming pool: attention weights sum to one and follow the scores", "[pooling][fast]") {
  const auto task = heed::pooling::fixed_length_task(PoolingProblem::kMultiplication, 200);
  heed::Rng rng = heed::make_rng(2);
  const auto batch = heed::pooling::make_pooling_batch(task, 5, rng);
  for (const auto kind : {PoolingKind::kFeedForwardAttention, PoolingKind::kFeedForwardLinear,
                          PoolingKind::kFeedForwardScaled, PoolingKind::kFeedForwardPositional}) {
    heed::pooling::PoolingModel model(kind, task.padded_length(), 16, rng);
    std::vector<float> y;
    model.forward(batch, y);
    const std::vector<float> alpha = model.attention_weights();
    const int64_t steps = batch.inputs.dim(0);
    REQUIRE(int64_t(alpha.size()) == 5 * steps);
    for (int64_t n = 0; n < 5; ++n) {
      double sum = 0;
      for (int64_t t = 0; t < steps; ++t) sum += double(alpha[size_t(n * steps + t)]);
      CHECK(sum == Approx(1.0).epsilon(1e-5));
    }
  }
  // tanh bounds every score to [−1, 1]: no step weighs more than e² times another.
  heed::pooling::PoolingModel bounded(PoolingKind::kFeedForwardAttention, task.padded_length(), 16,
                                      rng);
  for (const double ratio : saturated_weight_ratios(bounded, batch)) {
    CHECK(ratio <= std::exp(2.0) * (1 + 1e-5));
    CHECK(ratio > 2.0);  // the large weights do push towards the bound
  }
}

TEST_CASE("streaming pool: score names and bad sizes", "[pooling][fast]") {
  for (const char* name : {"tanh", "linear", "scaled-tanh", "positional-tanh", "mean"}) {
    CHECK(heed::pooling::to_string(heed::pooling::parse_score_kind(name)) == name);
  }
  CHECK_THROWS_AS(heed::pooling::parse_score_kind("relu"), heed::ConfigError);
  CHECK_THROWS_AS(heed::pooling::StreamingPool(heed::pooling::ScoreKind::kTanh, 0, 10),
                  heed::ConfigError);
}

TEST_CASE("streaming pool: a fixed scale S bounds two weights' ratio by e^2S", "[pooling][fast]") {
  const auto task = heed::pooling::fixed_length_task(PoolingProblem::kMultiplication, 200);
  heed::Rng rng = heed::make_rng(3);
  const auto batch = heed::pooling::make_pooling_batch(task, 5, rng);
  for (const float scale : {0.5f, 2.f}) {
    heed::pooling::PoolingModel model(PoolingKind::kFeedForwardFixedScale, task.padded_length(), 16,
                                      rng, true, scale);
    CHECK(model.parameters().find("pool/scale") == nullptr);  // nothing learns it
    const std::vector<double> ratios = saturated_weight_ratios(model, batch);
    const double widest = *std::max_element(ratios.begin(), ratios.end());
    INFO("S = " << scale);
    CHECK(widest <= std::exp(2.0 * double(scale)) * (1 + 1e-4));
    CHECK(widest > std::exp(2.0 * double(scale)) * 0.5);  // saturated scores come near it
  }
}
