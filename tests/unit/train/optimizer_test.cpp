#include "heed/train/optimizer.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "heed/common/error.h"
#include "heed/train/lr_schedule.h"

using namespace heed;
using train::ParamRef;

TEST_CASE("adam: two steps by hand (PyTorch's formula)", "[train][fast]") {
  float w = 1.0f, g = 0.5f;
  std::vector<ParamRef> params = {{"w", &w, &g, 1}};
  auto adam = train::make_optimizer({});
  // Step 1: m = 0.05, v = 0.00025, bias-corrected m̂/√v̂ = 1 → w moves by lr.
  adam->step(params, 0.1f);
  CHECK(w == Approx(0.9f).epsilon(1e-6));
  // Step 2: m = 0.095, v = 0.00049975; m̂ = 0.5, √v̂ = 0.5 → again lr.
  adam->step(params, 0.1f);
  CHECK(w == Approx(0.8f).epsilon(1e-6));
  CHECK(adam->steps() == 2);
}

TEST_CASE("optimizers: saved state resumes exactly", "[train][fast]") {
  for (auto type : {train::OptimizerType::kAdam, train::OptimizerType::kSgd}) {
    train::OptimizerConfig config;
    config.type = type;
    config.momentum = type == train::OptimizerType::kSgd ? 0.9f : 0.0f;
    std::vector<float> a = {1, -2, 3}, b = a, grad_a(3), grad_b(3);
    std::vector<ParamRef> pa = {{"p", a.data(), grad_a.data(), 3}},
                          pb = {{"p", b.data(), grad_b.data(), 3}};
    auto gradients = [](std::vector<float>& w, std::vector<float>& g) {
      for (size_t i = 0; i < w.size(); ++i) g[i] = 2 * w[i] - 1;  // d/dw of (w² − w)
    };
    auto straight = train::make_optimizer(config);
    for (int s = 0; s < 3; ++s) {
      gradients(a, grad_a);
      straight->step(pa, 0.05f);
    }
    auto first = train::make_optimizer(config);
    gradients(b, grad_b);
    first->step(pb, 0.05f);
    io::SafeTensors state;
    first->save_state(pb, state);
    io::SafeTensors reread = io::SafeTensors::parse(state.serialize(), "ckpt");
    auto resumed = train::make_optimizer(config);
    resumed->load_state(pb, reread);
    CHECK(resumed->steps() == 1);
    for (int s = 0; s < 2; ++s) {
      gradients(b, grad_b);
      resumed->step(pb, 0.05f);
    }
    CHECK(a == b);  // bit for bit
  }
}

TEST_CASE("sgd: plain and momentum updates", "[train][fast]") {
  float w = 1.0f, g = 1.0f;
  std::vector<ParamRef> params = {{"w", &w, &g, 1}};
  train::OptimizerConfig config;
  config.type = train::OptimizerType::kSgd;
  config.momentum = 0.5f;
  auto sgd = train::make_optimizer(config);
  sgd->step(params, 0.1f);  // buffer = 1 → w = 0.9
  CHECK(w == Approx(0.9f));
  sgd->step(params, 0.1f);  // buffer = 0.5 + 1 = 1.5 → w = 0.75
  CHECK(w == Approx(0.75f));
  config.momentum = 1.0f;
  CHECK_THROWS_AS(train::make_optimizer(config), ConfigError);
}

TEST_CASE("clip: global norm as clip_grad_norm_", "[train][fast]") {
  float w[2] = {0, 0}, g1[1] = {3}, g2[1] = {4};
  std::vector<ParamRef> params = {{"a", &w[0], g1, 1}, {"b", &w[1], g2, 1}};
  const double norm = train::global_norm(params);
  CHECK(norm == Approx(5.0));
  CHECK(train::clip_coefficient(norm, 10.0) == 1.0f);  // under the limit: unchanged
  const float scale = train::clip_coefficient(norm, 1.0);
  CHECK(g1[0] * scale == Approx(0.6f).epsilon(1e-5));
  CHECK(g2[0] * scale == Approx(0.8f).epsilon(1e-5));
  g1[0] = NAN;
  CHECK(std::isnan(train::global_norm(params)));
}

TEST_CASE("clip: the blocked, threaded norm matches a double sum over many blocks",
          "[train][fast]") {
  // Sizes that are not multiples of the block, and a parameter smaller than one.
  std::vector<std::vector<float>> grads = {std::vector<float>(10000), std::vector<float>(3),
                                           std::vector<float>(8193)};
  std::vector<float> weights(10000);
  std::vector<ParamRef> params;
  double reference = 0;
  uint32_t state = 12345;
  for (auto& g : grads) {
    for (float& x : g) {
      state = state * 1664525u + 1013904223u;
      x = float(state >> 8) / float(1u << 24) - 0.5f;
      reference += double(x) * double(x);
    }
    params.push_back({"p", weights.data(), g.data(), g.size()});
  }
  CHECK(train::global_norm(params) == Approx(std::sqrt(reference)).epsilon(1e-6));
  CHECK(train::clip_coefficient(10.0, 5.0) == Approx(5.0 / (10.0 + 1e-6)));
  CHECK(train::clip_coefficient(4.0, 5.0) == 1.0f);
  CHECK(train::clip_coefficient(4.0, 0.0) == 1.0f);  // no clipping
  CHECK(train::clip_coefficient(INFINITY, 5.0) == 1.0f);
}

TEST_CASE("optimizers: a gradient scale equals scaling the gradients first", "[train][fast]") {
  // Clipping folds its coefficient into the step; the result must be the very same floats.
  for (auto type : {train::OptimizerType::kAdam, train::OptimizerType::kSgd}) {
    train::OptimizerConfig config;
    config.type = type;
    config.momentum = 0.9f;
    config.weight_decay = 0.01f;
    std::vector<float> a(1000), b(1000), grad_a(1000), grad_b(1000);
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = b[i] = std::sin(float(i));
      grad_a[i] = std::cos(float(i) * 0.7f);
    }
    const float scale = 0.37f;
    for (size_t i = 0; i < a.size(); ++i) grad_b[i] = grad_a[i] * scale;
    std::vector<ParamRef> pa = {{"w", a.data(), grad_a.data(), a.size()}};
    std::vector<ParamRef> pb = {{"w", b.data(), grad_b.data(), b.size()}};
    auto scaled = train::make_optimizer(config), plain = train::make_optimizer(config);
    for (int step = 0; step < 3; ++step) {
      scaled->step(pa, 0.01f, scale);
      plain->step(pb, 0.01f);
    }
    CHECK(a == b);
  }
}

TEST_CASE("lr schedule: warm-up, plateau halving, restore", "[train][fast]") {
  train::LrScheduleConfig config;
  config.lr = 1e-3f;
  config.warmup_steps = 4;
  config.patience = 1;
  train::LrSchedule schedule(config);
  CHECK(schedule.lr(1) == Approx(2.5e-4f));
  CHECK(schedule.lr(4) == Approx(1e-3f));
  CHECK_FALSE(schedule.on_validation(10.0));  // first: best
  CHECK_FALSE(schedule.on_validation(9.0));   // better
  CHECK_FALSE(schedule.on_validation(9.5));   // worse, within patience
  CHECK(schedule.on_validation(9.6));         // worse again: halve
  CHECK(schedule.lr(100) == Approx(5e-4f));
  train::LrSchedule restored(config);
  restored.restore(schedule.current(), schedule.best(), schedule.bad_validations());
  CHECK(restored.lr(100) == schedule.lr(100));
  config.type = train::LrScheduleType::kConstant;
  train::LrSchedule constant(config);
  constant.on_validation(1.0);
  CHECK_FALSE(constant.on_validation(2.0));
  CHECK_FALSE(constant.on_validation(3.0));
  CHECK(constant.lr(10) == Approx(1e-3f));
  CHECK_THROWS_AS(train::parse_lr_schedule("noam"), ConfigError);
}

TEST_CASE("lr schedule: inverse square root after warm-up, by hand", "[train][fast]") {
  train::LrScheduleConfig config;
  config.type = train::parse_lr_schedule("inv-sqrt");
  config.lr = 1e-3f;
  config.warmup_steps = 100;
  config.min_lr = 1e-5f;
  train::LrSchedule schedule(config);
  CHECK(schedule.lr(50) == Approx(5e-4f));         // ramp
  CHECK(schedule.lr(100) == Approx(1e-3f));        // peak
  CHECK(schedule.lr(400) == Approx(5e-4f));        // √(100/400) = 1/2
  CHECK(schedule.lr(10000) == Approx(1e-4f));      // √(100/10⁴) = 1/10
  CHECK(schedule.lr(100000000) == Approx(1e-5f));  // the floor
  CHECK_FALSE(schedule.on_validation(5.0));
  CHECK_FALSE(schedule.on_validation(6.0));  // plateaus do not change it
  CHECK(schedule.lr(400) == Approx(5e-4f));
  config.warmup_steps = 0;
  CHECK_THROWS_AS(config.validate(), ConfigError);
}

TEST_CASE("lr schedule: cosine to the step budget, by hand", "[train][fast]") {
  train::LrScheduleConfig config;
  config.type = train::parse_lr_schedule("cosine");
  config.lr = 1e-3f;
  config.warmup_steps = 100;
  config.min_lr = 1e-5f;
  config.total_steps = 1100;
  train::LrSchedule schedule(config);
  CHECK(schedule.lr(100) == Approx(1e-3f));
  // Halfway between the warm-up and the end: (1 + cos(π/2))/2 = 1/2 of the way to the floor.
  CHECK(schedule.lr(600) == Approx(1e-5f + 0.5f * (1e-3f - 1e-5f)));
  // A quarter: (1 + cos(π/4))/2 = 0.853553.
  CHECK(schedule.lr(350) == Approx(1e-5f + 0.8535534f * (1e-3f - 1e-5f)));
  CHECK(schedule.lr(1100) == Approx(1e-5f));
  CHECK(schedule.lr(5000) == Approx(1e-5f));  // past the budget: the floor
  config.total_steps = 0;
  CHECK_THROWS_AS(config.validate(), ConfigError);
  config.total_steps = 1100;
  config.min_lr = 2e-3f;  // above the peak
  CHECK_THROWS_AS(config.validate(), ConfigError);
}

TEST_CASE("lr schedule: plateau decays after its patience and stops at the floor",
          "[train][fast]") {
  train::LrScheduleConfig config;
  config.lr = 1e-3f;
  config.patience = 2;
  config.decay_factor = 0.1f;
  config.min_lr = 5e-5f;
  train::LrSchedule schedule(config);
  CHECK_FALSE(schedule.on_validation(10.0));
  CHECK_FALSE(schedule.on_validation(11.0));
  CHECK_FALSE(schedule.on_validation(11.0));
  CHECK(schedule.on_validation(11.0));  // third without a gain: ×0.1
  CHECK(schedule.lr(1) == Approx(1e-4f));
  for (int i = 0; i < 2; ++i) CHECK_FALSE(schedule.on_validation(12.0));
  CHECK(schedule.on_validation(12.0));  // 1e-5 would be below the floor: 5e-5
  CHECK(schedule.lr(1) == Approx(5e-5f));
  for (int i = 0; i < 2; ++i) CHECK_FALSE(schedule.on_validation(12.0));
  CHECK_FALSE(schedule.on_validation(12.0));  // at the floor: no decay left
  CHECK(schedule.lr(1) == Approx(5e-5f));
}
