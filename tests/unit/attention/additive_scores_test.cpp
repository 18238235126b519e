// The fused additive score kernel (lib/heed/attention/additive_scores.h) on its own: its tanh's
// error, the scores and gradients against double precision and finite differences on shapes
// whose A is not a multiple of the vector width and whose rows have spans shorter than the
// source, the same results with any thread count, and a tape that no longer holds the tanh
// values of every query and position.
#include "heed/attention/additive_scores.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "heed/attention/registry.h"
#include "heed/onednn/context.h"
#include "support/gradcheck.h"

using heed::attention::AdditiveScoreShape;
using heed::attention::Span;

namespace {

// T = 3 queries, N = 4 sentences, S = 7 positions, A = 37 (two whole 16-lane vectors and 5
// lanes more).
constexpr AdditiveScoreShape kShape{3, 4, 7, 37};

struct Inputs {
  std::vector<float> wq, p, v, d_scores;
  std::vector<Span> spans;
};

std::vector<float> uniform(int64_t size, heed::Rng& rng, float scale) {
  std::vector<float> x(size_t(size), 0.f);
  for (float& value : x) value = std::uniform_real_distribution<float>(-scale, scale)(rng);
  return x;
}

// Sentences of lengths 7, 3, 1 and 5 (prefix spans [0, length)); row 1 of sentence 0 has the
// window [2, 5) instead. d_scores is random everywhere, outside the spans too: the kernel must
// not read it there.
Inputs make_inputs(const AdditiveScoreShape& shape, uint64_t seed) {
  heed::Rng rng = heed::make_rng(seed);
  Inputs in;
  const int64_t t = shape.queries, n = shape.batch, s = shape.source, a = shape.dim;
  // Pre-activations spread over [−3, 3]: both of the tanh's pieces are used.
  in.wq = uniform(t * n * a, rng, 1.5f);
  in.p = uniform(s * n * a, rng, 1.5f);
  in.v = uniform(a, rng, 1.f);
  in.d_scores = uniform(n * t * s, rng, 1.f);
  const std::vector<int64_t> lengths = {7, 3, 1, 5};
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t q = 0; q < t; ++q) {
      in.spans.push_back({0, std::min(s, lengths[size_t(b) % lengths.size()])});
    }
  }
  in.spans[1] = {2, 5};
  return in;
}

int64_t row_of(const AdditiveScoreShape& shape, int64_t b, int64_t t) {
  return b * shape.queries + t;
}
bool inside(const Span& span, int64_t s) {
  return s >= span.begin && s < span.end;
}

double pre_activation(const AdditiveScoreShape& shape, const Inputs& in, int64_t b, int64_t t,
                      int64_t s, int64_t k) {
  return double(in.wq[size_t((t * shape.batch + b) * shape.dim + k)]) +
         double(in.p[size_t((s * shape.batch + b) * shape.dim + k)]);
}

struct Gradients {
  std::vector<float> d_wq, d_p, dv;
};

// d_p and dv start from `start` (the kernel adds to them), d_wq from garbage (overwritten).
Gradients run_backward(const AdditiveScoreShape& shape, const Inputs& in, float start) {
  Gradients g;
  g.d_wq.assign(in.wq.size(), 123.f);
  g.d_p.assign(in.p.size(), start);
  g.dv.assign(in.v.size(), start);
  heed::attention::additive_scores_backward(shape, in.wq.data(), in.p.data(), in.v.data(), in.spans,
                                            in.d_scores.data(), g.d_wq.data(), g.d_p.data(),
                                            g.dv.data());
  return g;
}

std::vector<float> run_forward(const AdditiveScoreShape& shape, const Inputs& in) {
  std::vector<float> scores(size_t(shape.batch * shape.queries * shape.source), -7.f);
  heed::attention::additive_scores(shape, in.wq.data(), in.p.data(), in.v.data(), in.spans,
                                   scores.data());
  return scores;
}

// Σ d_scores·e over the spans, in double from the kernel's float scores.
double weighted_scores(const AdditiveScoreShape& shape, const Inputs& in) {
  const std::vector<float> e = run_forward(shape, in);
  double sum = 0;
  for (size_t r = 0; r < e.size(); ++r) {
    if (inside(in.spans[r / size_t(shape.source)], int64_t(r % size_t(shape.source)))) {
      sum += double(in.d_scores[r]) * double(e[r]);
    }
  }
  return sum;
}

}  // namespace

TEST_CASE("additive kernel: tanh within 1.5e-7 absolute and 3e-7 relative of std::tanh",
          "[attention][fast]") {
  // Every 10⁻⁴ over [−12, 12] (every power-of-2 reduction step and the clamp at 10), and
  // geometrically down to 10⁻³⁰ for the relative error near 0. Measured on this machine
  // (AVX-512 variant): 8.9e-8 absolute (near |x| = 3.1), 2.2e-7 relative (near 1.3e-4).
  double max_abs = 0, max_rel = 0;
  int64_t not_odd = 0, beyond_one = 0;
  auto check = [&](float x) {
    const double want = std::tanh(double(x));
    const float got = heed::attention::additive_tanh(x);
    not_odd += heed::attention::additive_tanh(-x) != -got;
    beyond_one += std::fabs(got) > 1.f;
    const double error = std::fabs(double(got) - want);
    max_abs = std::max(max_abs, error);
    if (want != 0) max_rel = std::max(max_rel, error / std::fabs(want));
  };
  for (int64_t i = -120000; i <= 120000; ++i) check(float(double(i) * 1e-4));
  for (double x = 1e-30; x < 1; x *= 1.01) check(float(x));
  INFO("isa " << heed::attention::additive_scores_isa() << ": max error " << max_abs
              << " absolute, " << max_rel << " relative");
  CHECK(not_odd == 0);
  CHECK(beyond_one == 0);
  CHECK(max_abs < 1.5e-7);
  CHECK(max_rel < 3e-7);
  CHECK(heed::attention::additive_tanh(30.f) == 1.f);
  CHECK(heed::attention::additive_tanh(-30.f) == -1.f);
  CHECK(heed::attention::additive_tanh(0.f) == 0.f);
}

TEST_CASE("additive kernel: scores and gradients equal a double-precision loop, spans respected",
          "[attention][fast]") {
  heed::onednn::set_threads(2);
  const AdditiveScoreShape shape = kShape;
  const Inputs in = make_inputs(shape, 11);
  const std::vector<float> scores = run_forward(shape, in);
  const float start = 0.25f;
  const Gradients got = run_backward(shape, in, start);

  const int64_t a = shape.dim, n = shape.batch;
  std::vector<double> d_wq(in.wq.size(), 0.0), d_p(in.p.size(), start), dv(in.v.size(), start);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t t = 0; t < shape.queries; ++t) {
      const int64_t row = row_of(shape, b, t);
      for (int64_t s = 0; s < shape.source; ++s) {
        const float score = scores[size_t(row * shape.source + s)];
        if (!inside(in.spans[size_t(row)], s)) {
          CHECK(score == 0.f);
          continue;
        }
        const double de = in.d_scores[size_t(row * shape.source + s)];
        double e = 0;
        for (int64_t k = 0; k < a; ++k) {
          const double h = std::tanh(pre_activation(shape, in, b, t, s, k));
          e += double(in.v[size_t(k)]) * h;
          dv[size_t(k)] += de * h;
          const double pre = de * double(in.v[size_t(k)]) * (1 - h * h);
          d_wq[size_t((t * n + b) * a + k)] += pre;
          d_p[size_t((s * n + b) * a + k)] += pre;
        }
        CHECK(std::fabs(double(score) - e) < 1e-5);
      }
    }
  }
  auto max_diff = [](const std::vector<float>& x, const std::vector<double>& y) {
    double m = 0;
    for (size_t i = 0; i < x.size(); ++i) m = std::max(m, std::fabs(double(x[i]) - y[i]));
    return m;
  };
  CHECK(max_diff(got.d_wq, d_wq) < 1e-5);
  CHECK(max_diff(got.d_p, d_p) < 1e-5);
  CHECK(max_diff(got.dv, dv) < 1e-5);
  // Sentence 2 (length 1) has no gradient past its first position.
  for (int64_t s = 1; s < shape.source; ++s) {
    for (int64_t k = 0; k < a; ++k) CHECK(got.d_p[size_t((s * n + 2) * a + k)] == start);
  }
}

TEST_CASE("additive kernel: gradients equal finite differences of the float kernel",
          "[attention][fast]") {
  heed::onednn::set_threads(2);
  const AdditiveScoreShape shape = kShape;
  Inputs in = make_inputs(shape, 12);
  const Gradients g = run_backward(shape, in, 0.f);
  // Central differences of L = Σ d_scores·e with step h: truncation O(h²), float rounding of
  // the scores O(10⁻⁷·|L| / h).
  const float h = 1e-2f;
  int64_t checked = 0;
  auto check_all = [&](std::vector<float>& x, const std::vector<float>& grad, const char* name) {
    for (size_t i = 0; i < x.size(); ++i) {
      const float saved = x[i];
      x[i] = saved + h;
      const double up = weighted_scores(shape, in);
      x[i] = saved - h;
      const double down = weighted_scores(shape, in);
      x[i] = saved;
      const double numeric = (up - down) / (2.0 * double(h));
      INFO(name << "[" << i << "]: analytic " << grad[i] << ", numeric " << numeric);
      CHECK(std::fabs(numeric - double(grad[i])) < 2e-3 * std::max(1.0, std::fabs(numeric)));
      ++checked;
    }
  };
  check_all(in.wq, g.d_wq, "d_wq");
  check_all(in.p, g.d_p, "d_p");
  check_all(in.v, g.dv, "dv");
  CHECK(checked == int64_t(in.wq.size() + in.p.size() + in.v.size()));
}

TEST_CASE("additive kernel: the same scores and gradients with 1, 2 and 3 threads",
          "[attention][fast]") {
  // Enough sentences and source blocks (S = 70: three blocks of 32) to spread over threads.
  const AdditiveScoreShape shape{4, 6, 70, 37};
  Inputs in = make_inputs(shape, 13);
  for (size_t r = 0; r < in.spans.size(); ++r) in.spans[r] = {0, 70 - int64_t(r % 5) * 11};
  const int threads = heed::onednn::threads();
  heed::onednn::set_threads(1);
  const std::vector<float> scores = run_forward(shape, in);
  const Gradients g = run_backward(shape, in, 0.5f);
  for (const int count : {2, 3}) {
    heed::onednn::set_threads(count);
    INFO(count << " threads");
    CHECK(run_forward(shape, in) == scores);
    const Gradients other = run_backward(shape, in, 0.5f);
    CHECK(other.d_wq == g.d_wq);
    CHECK(other.d_p == g.d_p);
    CHECK(other.dv == g.dv);
  }
  heed::onednn::set_threads(threads);
}

TEST_CASE("additive attention: the tape holds W q, not the tanh of every query and position",
          "[attention][fast]") {
  heed::onednn::set_threads(1);
  for (const char* name : {"additive", "normed-additive"}) {
    heed::layers::ParameterStore store;
    heed::attention::AttentionConfig config;
    config.query_size = 6;
    config.key_size = 5;
    config.attention_dim = 8;
    auto attention = heed::attention::make_attention(name, config, store, "a/");
    heed::Rng rng = heed::make_rng(3);
    for (auto* p : store.all()) heed::test::fill_uniform(p->value, rng, -0.5f, 0.5f);
    attention->weights_changed();
    const int64_t s = 40, n = 2, t = 5;
    const heed::tensor::Tensor keys = heed::test::random_tensor(heed::tensor::Shape{s, n, 5}, rng);
    const heed::tensor::Tensor query = heed::test::random_tensor(heed::tensor::Shape{t, n, 6}, rng);
    attention->prepare(keys, {s, 17}, true);
    heed::attention::AttentionTape tape;
    heed::tensor::Tensor context;
    attention->forward(query, 0, context, nullptr, &tape);
    int64_t saved = 0;
    for (const auto& tensor : tape.saved) saved += tensor.numel();
    INFO(name);
    CHECK(saved == t * n * 8);  // W q alone; the old tape held N·T·S·A = 3,200 values
  }
}
