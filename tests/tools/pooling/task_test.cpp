// heed-pooling's task and models (tools/pooling/): the addition/multiplication generator (two
// markers, one per half, the target their sum or product), leaky ReLU and each model's loss
// gradient by finite differences, the parameter count formula, and a short addition run that
// solves.
#include "pooling/task.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "heed/common/error.h"
#include "pooling/leaky_relu.h"
#include "support/gradcheck.h"

using heed::pooling::PoolingKind;
using heed::pooling::PoolingProblem;
using heed::pooling::PoolingTask;
using heed::tensor::Shape;
using heed::tensor::Tensor;

TEST_CASE("pooling task: two markers, one per half, target their sum or product",
          "[pooling][fast]") {
  for (const auto problem : {PoolingProblem::kAddition, PoolingProblem::kMultiplication}) {
    for (const bool variable : {false, true}) {
      const PoolingTask task{problem, 21, variable};
      heed::Rng rng = heed::make_rng(3);
      const auto batch = heed::pooling::make_pooling_batch(task, 200, rng);
      REQUIRE(batch.inputs.shape() == Shape{21, 200, 2});
      int64_t shorter = 0;
      for (int64_t n = 0; n < 200; ++n) {
        const int64_t len = batch.lengths[size_t(n)];
        CHECK(len >= (variable ? 11 : 21));
        CHECK(len <= 21);
        shorter += len < 21;
        std::vector<int64_t> marked;
        for (int64_t t = 0; t < 21; ++t) {
          const float value = batch.inputs.data()[(t * 200 + n) * 2];
          const float marker = batch.inputs.data()[(t * 200 + n) * 2 + 1];
          if (t >= len) {
            CHECK(value == 0.f);
            CHECK(marker == 0.f);
            continue;
          }
          CHECK(value >= (problem == PoolingProblem::kAddition ? -1.f : 0.f));
          CHECK(value <= 1.f);
          CHECK((marker == 0.f || marker == 1.f));
          if (marker == 1.f) marked.push_back(t);
        }
        REQUIRE(marked.size() == 2);
        CHECK(marked[0] < len / 2);
        CHECK(marked[1] >= len / 2);
        CHECK(batch.marked[size_t(n)][0] == marked[0]);
        CHECK(batch.marked[size_t(n)][1] == marked[1]);
        const float a = batch.inputs.data()[(marked[0] * 200 + n) * 2];
        const float b = batch.inputs.data()[(marked[1] * 200 + n) * 2];
        CHECK(batch.targets[size_t(n)] == (problem == PoolingProblem::kAddition ? a + b : a * b));
      }
      // Fixed lengths are all T; drawn ones mostly shorter.
      CHECK((variable ? shorter > 150 : shorter == 0));
    }
  }
  heed::Rng rng = heed::make_rng(3);
  CHECK_THROWS_AS(heed::pooling::make_pooling_batch({PoolingProblem::kAddition, 1, false}, 1, rng),
                  heed::ConfigError);
}

TEST_CASE("pooling task: the same seed gives the same sequences", "[pooling][fast]") {
  const PoolingTask task{PoolingProblem::kMultiplication, 9, true};
  heed::Rng first = heed::make_rng(5, 2), second = heed::make_rng(5, 2);
  const auto a = heed::pooling::make_pooling_batch(task, 7, first);
  const auto b = heed::pooling::make_pooling_batch(task, 7, second);
  CHECK(a.inputs.to_vector() == b.inputs.to_vector());
  CHECK(a.targets == b.targets);
}

TEST_CASE("leaky relu: values and finite-difference gradient", "[pooling][grad]") {
  const std::vector<float> x = {-2.f, -0.5f, 0.25f, 3.f};
  std::vector<float> y(4);
  heed::pooling::leaky_relu(x.data(), y.data(), 4);
  CHECK(y == std::vector<float>{-0.02f, -0.005f, 0.25f, 3.f});

  heed::Rng rng = heed::make_rng(4);
  Tensor input = heed::test::random_tensor(Shape{64}, rng, -2.f, 2.f);
  const heed::test::Projection projection(Shape{64}, rng);
  Tensor grad(Shape{64});
  heed::pooling::leaky_relu_backward(input.data(), projection.grad().data(), grad.data(), 64);
  const auto loss = [&] {
    Tensor out(Shape{64});
    heed::pooling::leaky_relu(input.data(), out.data(), 64);
    return projection(out);
  };
  const auto result = heed::test::gradcheck(loss, {heed::test::grad_param("x", input, grad)});
  INFO(result.report);
  CHECK(result.ok);
  CHECK(result.checked > 0);
}

TEST_CASE("pooling models: finite-difference gradients of the MSE loss", "[pooling][grad]") {
  constexpr int64_t kT = 6, kWidth = 5;
  for (const auto kind :
       {PoolingKind::kFeedForwardAttention, PoolingKind::kMean, PoolingKind::kDense}) {
    // Variable lengths where the model takes them, so the padding's zero gradient is checked.
    const PoolingTask task{PoolingProblem::kMultiplication, kT, kind != PoolingKind::kDense};
    heed::Rng rng = heed::make_rng(6);
    const auto batch = heed::pooling::make_pooling_batch(task, 4, rng);
    heed::pooling::PoolingModel model(kind, kT, kWidth, rng);
    // Non-zero biases, so that every parameter's gradient matters.
    for (auto* p : model.parameters().all()) {
      if (p->value.rank() == 1) heed::test::fill_uniform(p->value, rng, -0.5f, 0.5f);
    }
    model.weights_changed();
    CHECK(model.parameter_count() ==
          heed::pooling::PoolingModel::count_parameters(kind, kT, kWidth));
    std::vector<float> predictions, d_predictions;
    model.forward(batch, predictions);
    heed::pooling::mean_squared_error(predictions, batch.targets, &d_predictions);
    model.parameters().zero_grad();
    model.backward(d_predictions);

    const auto loss = [&] {
      model.weights_changed();
      std::vector<float> y;
      model.forward(batch, y);
      return heed::pooling::mean_squared_error(y, batch.targets, nullptr);
    };
    std::vector<heed::test::GradParam> params;
    for (auto* p : model.parameters().all()) {
      params.push_back(heed::test::grad_param(p->name, p->value, p->grad));
    }
    heed::test::GradCheckOptions options;
    options.eps = 3e-3;
    const auto result = heed::test::gradcheck(loss, params, options);
    INFO(heed::pooling::to_string(kind) << ": " << result.report);
    CHECK(result.ok);
    CHECK(result.checked > 20);
  }
}

TEST_CASE("pooling models: dense needs a fixed length, the others do not", "[pooling][fast]") {
  const PoolingTask variable{PoolingProblem::kAddition, 10, true};
  CHECK_FALSE(heed::pooling::not_applicable_reason(PoolingKind::kDense, variable).empty());
  CHECK(heed::pooling::not_applicable_reason(PoolingKind::kMean, variable).empty());
  CHECK(heed::pooling::not_applicable_reason(PoolingKind::kFeedForwardAttention, variable).empty());
  heed::pooling::PoolingRunConfig config;
  config.task = variable;
  config.kind = PoolingKind::kDense;
  config.budget_steps = 1;
  CHECK_THROWS_AS(heed::pooling::run_pooling(config), heed::ConfigError);
}

TEST_CASE("pooling run: ff-pool solves addition at T = 20 within the step budget",
          "[pooling][slow]") {
  heed::pooling::PoolingRunConfig config;
  config.task = {PoolingProblem::kAddition, 20, false};
  config.kind = PoolingKind::kFeedForwardAttention;
  config.budget_steps = 5000;
  config.eval_size = 500;
  int64_t calls = 0;
  const auto result =
      heed::pooling::run_pooling(config, [&](const heed::pooling::PoolingProgress&) { ++calls; });
  INFO("steps " << result.steps << " accuracy " << result.accuracy);
  CHECK(result.solved);
  CHECK(result.steps_to_solve == result.steps);
  CHECK(result.steps_to_solve % config.eval_every == 0);
  CHECK(result.accuracy >= 0.99);
  CHECK(calls == result.steps);
  CHECK(result.parameters ==
        heed::pooling::PoolingModel::count_parameters(config.kind, 20, config.width));
}
