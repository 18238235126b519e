// heed-pooling's task and models (tools/pooling/), set up as Raffel & Ellis's released code: the
// generator against lstm_problems.py (lengths in [T₀, ceil(1.1·T₀)), −1 at both ends, N₁ in
// [1, 9], N₂ in [1, int(max/2 − 1)), the normalised addition target), every model's MSE
// gradient by finite differences, the parameter counts, and a short run that solves.
#include "pooling/task.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "heed/common/error.h"
#include "pooling/leaky_relu.h"
#include "support/gradcheck.h"

using heed::pooling::PoolingKind;
using heed::pooling::PoolingProblem;
using heed::pooling::PoolingTask;
using heed::tensor::Shape;
using heed::tensor::Tensor;

TEST_CASE("pooling task: the targets of lstm_problems.py's own examples", "[pooling][fast]") {
  // add(): ".5 + (.3 + .9)/4 = .8"; multiply(): ".3*.9 = .27" (the docstrings' sequences).
  CHECK(heed::pooling::pooling_target(PoolingProblem::kAddition, .3f, .9f) == Approx(.8f));
  CHECK(heed::pooling::pooling_target(PoolingProblem::kMultiplication, .3f, .9f) == Approx(.27f));
  // The normalised addition target spans [0, 1].
  CHECK(heed::pooling::pooling_target(PoolingProblem::kAddition, -1.f, -1.f) == 0.f);
  CHECK(heed::pooling::pooling_target(PoolingProblem::kAddition, 1.f, 1.f) == 1.f);
}

TEST_CASE("pooling task: padded length and marker range as the authors compute them",
          "[pooling][fast]") {
  // int(np.ceil(1.1*T)) and range(1, int(max_length/2 - 1)).
  const auto fixed = heed::pooling::fixed_length_task(PoolingProblem::kAddition, 50);
  CHECK(fixed.padded_length() == 55);
  CHECK(fixed.second_marker_range() == std::pair<int64_t, int64_t>{1, 26});
  CHECK(heed::pooling::fixed_length_task(PoolingProblem::kAddition, 100).padded_length() == 110);
  CHECK(heed::pooling::fixed_length_task(PoolingProblem::kAddition, 10000).padded_length() ==
        11000);
  CHECK(heed::pooling::fixed_length_task(PoolingProblem::kAddition, 101).padded_length() == 112);
  PoolingTask variable = fixed;
  variable.min_length = variable.max_length = 500;
  CHECK(variable.padded_length() == 500);
  CHECK(variable.second_marker_range() == std::pair<int64_t, int64_t>{1, 249});
}

TEST_CASE("pooling task: every sequence as gen_masked_sequences makes it", "[pooling][fast]") {
  for (const auto problem : {PoolingProblem::kAddition, PoolingProblem::kMultiplication}) {
    const auto task = heed::pooling::fixed_length_task(problem, 30);  // padded to 33
    heed::Rng rng = heed::make_rng(3);
    const int64_t count = 2000;
    const auto batch = heed::pooling::make_pooling_batch(task, count, rng);
    REQUIRE(batch.inputs.shape() == Shape{33, count, 2});
    std::set<int64_t> lengths, firsts, seconds;
    for (int64_t n = 0; n < count; ++n) {
      const int64_t len = batch.lengths[size_t(n)];
      lengths.insert(len);
      const auto at = [&](int64_t t, int64_t i) {
        return batch.inputs.data()[(t * count + n) * 2 + i];
      };
      std::vector<int64_t> ones;
      for (int64_t t = 0; t < 33; ++t) {
        if (t >= len) {
          CHECK(at(t, 0) == 0.f);
          CHECK(at(t, 1) == 0.f);
          continue;
        }
        CHECK(at(t, 0) >= (problem == PoolingProblem::kAddition ? -1.f : 0.f));
        CHECK(at(t, 0) <= 1.f);
        if (t == 0 || t == len - 1) CHECK(at(t, 1) == -1.f);
        if (at(t, 1) == 1.f) ones.push_back(t);
        if (t != 0 && t != len - 1 && at(t, 1) != 1.f) CHECK(at(t, 1) == 0.f);
      }
      REQUIRE(ones.size() == 2);
      const auto [n1, n2] = batch.marked[size_t(n)];
      CHECK(std::set<int64_t>{n1, n2} == std::set<int64_t>(ones.begin(), ones.end()));
      firsts.insert(n1);
      seconds.insert(n2);
      CHECK(batch.targets[size_t(n)] ==
            heed::pooling::pooling_target(problem, at(n1, 0), at(n2, 0)));
    }
    // randint(30, 33): 30, 31, 32; randint(1, 10): 1…9; N₂ in [1, int(33/2 − 1)) = [1, 15),
    // 15 reached only by a collision's + 1.
    CHECK(lengths == std::set<int64_t>{30, 31, 32});
    CHECK(firsts == std::set<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9});
    CHECK(*seconds.begin() == 1);
    CHECK(*seconds.rbegin() <= 15);
    CHECK(seconds.size() >= 14);
  }
}

TEST_CASE("pooling task: one length when minimum and maximum agree; bad tasks refused",
          "[pooling][fast]") {
  PoolingTask task = heed::pooling::fixed_length_task(PoolingProblem::kAddition, 40);
  task.max_length = 40;
  heed::Rng rng = heed::make_rng(4);
  const auto batch = heed::pooling::make_pooling_batch(task, 50, rng);
  for (const int64_t len : batch.lengths) CHECK(len == 40);
  // Restricted second markers (the generalisation runs).
  task.second_marker_begin = 10;
  task.second_marker_end = 12;
  for (const auto& marked : heed::pooling::make_pooling_batch(task, 200, rng).marked) {
    CHECK(marked[1] >= 10);
    CHECK(marked[1] < 12);
  }
  task.second_marker_end = 39;  // must end before the shortest sequence's last steps
  CHECK_THROWS_AS(heed::pooling::make_pooling_batch(task, 1, rng), heed::ConfigError);
  CHECK_THROWS_AS(heed::pooling::make_pooling_batch(
                      heed::pooling::fixed_length_task(PoolingProblem::kAddition, 11), 1, rng),
                  heed::ConfigError);
}

TEST_CASE("pooling task: the same seed gives the same sequences", "[pooling][fast]") {
  const auto task = heed::pooling::fixed_length_task(PoolingProblem::kMultiplication, 20);
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
  constexpr int64_t kWidth = 5;
  const auto task = heed::pooling::fixed_length_task(PoolingProblem::kMultiplication, 12);
  const int64_t padded = task.padded_length();
  for (std::string name : heed::pooling::pooling_kind_names()) {
    if (name == "ff-pool-fixed-S") name = "ff-pool-fixed-2.5";
    float fixed_scale = 0;
    const PoolingKind kind = heed::pooling::parse_pooling_kind(name, &fixed_scale);
    for (const bool fused : {true, false}) {
      const bool has_unfused = kind == PoolingKind::kFeedForwardAttention ||
                               kind == PoolingKind::kMean || kind == PoolingKind::kDense ||
                               kind == PoolingKind::kDenseMean;
      if (!fused && !has_unfused) continue;
      heed::Rng rng = heed::make_rng(6);
      const auto batch = heed::pooling::make_pooling_batch(task, 4, rng);
      heed::pooling::PoolingModel model(kind, padded, kWidth, rng, fused, fixed_scale);
      // Biases at least 0.1 from 0 and a positive output, so that every parameter's gradient
      // matters and no leaky ReLU sits on its kink: padded steps (x = 0) put the step layer's
      // pre-activation exactly at its bias.
      for (auto* p : model.parameters().all()) {
        if (p->value.rank() != 1) continue;
        heed::test::fill_uniform(p->value, rng, -0.4f, 0.4f);
        for (int64_t i = 0; i < p->value.numel(); ++i) {
          float& v = p->value.data()[i];
          v += v < 0.f ? -0.1f : 0.1f;
        }
      }
      model.parameters().find("output/bias")->value.data()[0] = 1.f;
      model.weights_changed();
      CHECK(model.parameter_count() ==
            heed::pooling::PoolingModel::count_parameters(kind, padded, kWidth));
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
      options.eps = 1e-3;
      const auto result = heed::test::gradcheck(loss, params, options);
      INFO(name << (fused ? " fused: " : " unfused: ") << result.report);
      CHECK(result.ok);
      CHECK(result.checked > 20);
    }
  }
}

TEST_CASE("pooling models: ff-pool-fixed-S names, and S = 1 trains bit for bit as ff-pool",
          "[pooling][fast]") {
  float scale = 0;
  CHECK(heed::pooling::parse_pooling_kind("ff-pool-fixed-2", &scale) ==
        PoolingKind::kFeedForwardFixedScale);
  CHECK(scale == 2.f);
  CHECK(heed::pooling::model_name(PoolingKind::kFeedForwardFixedScale, scale) == "ff-pool-fixed-2");
  CHECK(heed::pooling::parse_pooling_kind("ff-pool-fixed-1.5", &scale) ==
        PoolingKind::kFeedForwardFixedScale);
  CHECK(heed::pooling::model_name(PoolingKind::kFeedForwardFixedScale, scale) ==
        "ff-pool-fixed-1.5");
  CHECK(heed::pooling::model_name(PoolingKind::kMean, 0) == "mean");
  for (const char* bad :
       {"ff-pool-fixed-S", "ff-pool-fixed-", "ff-pool-fixed-0", "ff-pool-fixed-21",
        "ff-pool-fixed--1", "ff-pool-fixed-2x", "ff-pool-fixed-nan"}) {
    INFO(bad);
    CHECK_THROWS_AS(heed::pooling::parse_pooling_kind(bad, &scale), heed::ConfigError);
  }

  // Scores 1·tanh(z) are tanh(z) to the bit, and the fixed scale is no parameter: the same
  // draws, updates and tests as ff-pool.
  heed::pooling::PoolingRunConfig config;
  config.task = heed::pooling::fixed_length_task(PoolingProblem::kMultiplication, 30);
  config.budget_steps = 300;
  config.eval_every = 100;
  config.eval_batches = 2;
  config.batch_size = 20;
  config.learning_rate = 0.003f;
  const heed::pooling::PoolingRunResult plain = heed::pooling::run_pooling(config);
  config.kind = PoolingKind::kFeedForwardFixedScale;
  config.fixed_scale = 1;
  const heed::pooling::PoolingRunResult fixed = heed::pooling::run_pooling(config);
  CHECK(fixed.steps == plain.steps);
  CHECK(fixed.accuracy == plain.accuracy);
  CHECK(fixed.mse == plain.mse);
  CHECK(fixed.marked_weight == plain.marked_weight);
  CHECK(fixed.marked_bound == plain.marked_bound);
  CHECK(fixed.parameters == plain.parameters);
  // S = 3: another run, whose bound is 2e^6 / (2e^6 + T − 2) of the padded T = 33 steps.
  config.fixed_scale = 3;
  const heed::pooling::PoolingRunResult three = heed::pooling::run_pooling(config);
  CHECK(three.mse != plain.mse);
  CHECK(three.marked_bound == Approx(2 * std::exp(6.0) / (2 * std::exp(6.0) + 31)));
  config.fixed_scale = 0;
  CHECK_THROWS_AS(heed::pooling::run_pooling(config), heed::ConfigError);
}

TEST_CASE("pooling models: dense needs a fixed length, the others do not", "[pooling][fast]") {
  heed::pooling::PoolingRunConfig config;
  config.task = heed::pooling::fixed_length_task(PoolingProblem::kAddition, 20);
  const auto reason = [&](PoolingKind kind, int64_t variable_max,
                          std::vector<int64_t> transfer_lengths) {
    heed::pooling::PoolingRunConfig run = config;
    run.kind = kind;
    run.variable_min = variable_max > 0 ? 20 : 0;
    run.variable_max = variable_max;
    for (int64_t length : transfer_lengths) {
      run.transfer_tasks.push_back(
          heed::pooling::fixed_length_task(PoolingProblem::kAddition, length));
    }
    return heed::pooling::not_applicable_reason(run);
  };
  CHECK_FALSE(reason(PoolingKind::kDense, 40, {}).empty());
  CHECK(reason(PoolingKind::kDense, 0, {}).empty());
  CHECK(reason(PoolingKind::kDense, 0, {20}).empty());  // other markers, the same length
  CHECK(reason(PoolingKind::kDense, 0, {20, 30}).find("T = 30") != std::string::npos);
  CHECK(reason(PoolingKind::kMean, 40, {30}).empty());
  CHECK(reason(PoolingKind::kFeedForwardAttention, 40, {30}).empty());
  CHECK(reason(PoolingKind::kDenseMean, 0, {30}).empty());
  config.variable_min = 20;
  config.variable_max = 40;
  config.kind = PoolingKind::kDense;
  CHECK_THROWS_AS(heed::pooling::run_pooling(config), heed::ConfigError);
  config.kind = PoolingKind::kFeedForwardLinear;
  config.fused = false;
  config.variable_min = config.variable_max = 0;
  CHECK_THROWS_AS(heed::pooling::run_pooling(config), heed::ConfigError);
}

TEST_CASE("pooling run: ff-pool solves addition at T = 50 as the authors test it",
          "[pooling][slow]") {
  heed::pooling::PoolingRunConfig config;
  config.task = heed::pooling::fixed_length_task(PoolingProblem::kAddition, 50);
  config.kind = PoolingKind::kFeedForwardAttention;
  config.learning_rate = 3e-3f;
  config.eval_every = 250;
  config.budget_steps = 10000;
  int64_t calls = 0;
  const auto result =
      heed::pooling::run_pooling(config, [&](const heed::pooling::PoolingProgress&) { ++calls; });
  INFO("steps " << result.steps << " accuracy " << result.accuracy);
  CHECK(result.solved);
  CHECK(result.steps_to_solve == result.steps);
  CHECK(result.steps_to_solve % config.eval_every == 0);
  CHECK(result.accuracy == 1.0);
  CHECK(calls == result.steps);
  CHECK(result.parameters ==
        heed::pooling::PoolingModel::count_parameters(config.kind, 55, config.width));
}

TEST_CASE("pooling run: stop_after ends a run that has not solved; variable lengths run",
          "[pooling][fast]") {
  heed::pooling::PoolingRunConfig config;
  config.task = heed::pooling::fixed_length_task(PoolingProblem::kMultiplication, 20);
  config.kind = PoolingKind::kMean;
  config.eval_every = 10;
  config.stop_after = 30;
  const auto stopped = heed::pooling::run_pooling(config);
  CHECK(stopped.steps == 30);
  CHECK_FALSE(stopped.solved);
  config.stop_after = 0;
  config.budget_steps = 12;
  config.variable_min = 20;
  config.variable_max = 60;
  config.transfer_tasks = {heed::pooling::fixed_length_task(PoolingProblem::kMultiplication, 80)};
  const auto variable = heed::pooling::run_pooling(config);
  CHECK(variable.steps == 12);
  CHECK(variable.accuracy >= 0);
  REQUIRE(variable.transfer_accuracy.size() == 1);
  CHECK(variable.transfer_accuracy[0] >= 0);
}
