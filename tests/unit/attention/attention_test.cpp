// Every registered attention mechanism: forward against a double-precision loop, finite-
// difference gradients (one loop over the registry, so a new mechanism is covered by adding
// it), exactness under padding, all-steps-at-once = step by step, select() for beam search,
// and the registry's names and errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/onednn/context.h"
#include "heed/tensor/tensor_ops.h"
#include "support/gradcheck.h"

using heed::attention::Attention;
using heed::attention::AttentionConfig;
using heed::attention::AttentionTape;
using heed::layers::ParameterStore;
using heed::tensor::Shape;
using heed::tensor::Tensor;

namespace {

constexpr int64_t kS = 5, kN = 3, kK = 6, kQ = 6, kA = 4;

AttentionConfig config() {
  AttentionConfig c;
  c.query_size = kQ;
  c.key_size = kK;
  c.attention_dim = kA;
  return c;
}

// Mechanisms with a local window (local-m, local-p) get a narrow one, D = 1, so that every test
// here covers windows smaller than the sentences.
constexpr int64_t kWindow = 1;
AttentionConfig config_for(const std::string& name) {
  AttentionConfig c = config();
  for (const heed::attention::OptionSpec& spec : heed::attention::attention_info(name).options) {
    if (spec.name == "window") c.options["window"] = kWindow;
  }
  return c;
}

struct Fixture {
  ParameterStore store;
  std::unique_ptr<Attention> attention;
  int64_t window = -1;  // half width D of a local mechanism's window, -1 for the others
  Fixture(const std::string& name, uint64_t seed,
          heed::attention::Normalizer normalizer = heed::attention::Normalizer::kSoftmax) {
    AttentionConfig c = config_for(name);
    if (c.options.count("window")) window = int64_t(c.options.at("window"));
    c.normalizer = normalizer;
    attention = heed::attention::make_attention(name, c, store, "decoder/attention/");
    heed::Rng rng = heed::make_rng(seed);
    for (auto* p : store.all()) heed::test::fill_uniform(p->value, rng, -0.5f, 0.5f);
    attention->weights_changed();
  }
  const float* param(const std::string& n) const {
    return store.get("decoder/attention/" + n).value.data();
  }
};

// Scores in double for one query row q [Q] against key h [K].
double reference_score(const std::string& name, const Fixture& f, const float* q, const float* h) {
  double e = 0;
  if (name == "dot" || name == "scaled-dot") {
    for (int64_t k = 0; k < kK; ++k) e += double(q[k]) * double(h[k]);
    if (name == "scaled-dot") e /= std::sqrt(double(kK));
  } else if (name == "general" || name == "local-m" || name == "local-p") {
    const float* w = f.param("weight");  // [Q, K]
    for (int64_t i = 0; i < kQ; ++i) {
      double wh = 0;
      for (int64_t k = 0; k < kK; ++k) wh += double(w[i * kK + k]) * double(h[k]);
      e += double(q[i]) * wh;
    }
  } else if (name == "additive") {
    const float *wq = f.param("w_query"), *wk = f.param("w_key"), *b = f.param("bias"),
                *v = f.param("v");
    for (int64_t a = 0; a < kA; ++a) {
      double pre = double(b[a]);
      for (int64_t i = 0; i < kQ; ++i) pre += double(wq[a * kQ + i]) * double(q[i]);
      for (int64_t k = 0; k < kK; ++k) pre += double(wk[a * kK + k]) * double(h[k]);
      e += double(v[a]) * std::tanh(pre);
    }
  }
  return e;
}

// Luong's local attention (local-m, local-p): the centre of the window of query row q at
// target position `position` in a sentence of `length`.
double reference_centre(const std::string& name, const Fixture& f, const float* q, int64_t position,
                        int64_t length) {
  if (name == "local-m") return double(position);
  const float *w = f.param("w_position"), *v = f.param("v_position");  // [A, Q], [A]
  double z = 0;
  for (int64_t a = 0; a < kA; ++a) {
    double pre = 0;
    for (int64_t i = 0; i < kQ; ++i) pre += double(w[a * kQ + i]) * double(q[i]);
    z += double(v[a]) * std::tanh(pre);
  }
  return double(length) / (1 + std::exp(-z));
}

// The window [m − D, m + D] ∩ [0, length) around m, the centre rounded after being clamped into
// the sentence (a centre past its end gives its last D + 1 positions).
std::pair<int64_t, int64_t> reference_window(double centre, int64_t half_width, int64_t length) {
  const auto middle =
      int64_t(std::floor(std::min(std::max(centre, 0.0), double(length - 1)) + 0.5));
  return {std::max<int64_t>(0, middle - half_width),
          std::min<int64_t>(length, middle + half_width + 1)};
}

// Context [Tq, N, K] and weights [N, Tq, S] in double; query row t is target position step + t.
// Local mechanisms: softmax over the window [round(p) − D, round(p) + D] of the centre p
// clamped into the sentence, times exp(−(s − p)² / 2σ²), σ = D/2, for local-p.
void reference_forward(const std::string& name, const Fixture& f, const Tensor& keys,
                       const std::vector<int64_t>& lengths, const Tensor& query,
                       std::vector<double>& context, std::vector<double>& weights,
                       int64_t step = 0) {
  const int64_t tq = query.dim(0), n = keys.dim(1), s = keys.dim(0);
  context.assign(size_t(tq * n * kK), 0.0);
  weights.assign(size_t(n * tq * s), 0.0);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t t = 0; t < tq; ++t) {
      const float* q = query.data() + (t * n + b) * kQ;
      const int64_t length = lengths[size_t(b)];
      int64_t begin = 0, end = length;
      double centre = 0;
      if (f.window >= 0) {
        centre = reference_centre(name, f, q, step + t, length);
        std::tie(begin, end) = reference_window(centre, f.window, length);
      }
      std::vector<double> e(static_cast<size_t>(length));
      double mx = -1e300;
      for (int64_t i = begin; i < end; ++i) {
        e[size_t(i)] = reference_score(name, f, q, keys.data() + (i * n + b) * kK);
        mx = std::max(mx, e[size_t(i)]);
      }
      double z = 0;
      for (int64_t i = begin; i < end; ++i) z += (e[size_t(i)] = std::exp(e[size_t(i)] - mx));
      for (int64_t i = begin; i < end; ++i) {
        double a = e[size_t(i)] / z;
        if (name == "local-p") {
          const double sigma = double(f.window) / 2;
          a *= std::exp(-(double(i) - centre) * (double(i) - centre) / (2 * sigma * sigma));
        }
        weights[size_t((b * tq + t) * s + i)] = a;
        for (int64_t k = 0; k < kK; ++k) {
          context[size_t((t * n + b) * kK + k)] += a * double(keys.data()[(i * n + b) * kK + k]);
        }
      }
    }
  }
}

double max_rel(const std::vector<double>& ref, const Tensor& got) {
  const std::vector<float> g = got.to_vector();
  REQUIRE(g.size() == ref.size());
  double err = 0, scale = 1e-12;
  for (size_t i = 0; i < ref.size(); ++i) {
    err = std::max(err, std::fabs(double(g[i]) - ref[i]));
    scale = std::max(scale, std::fabs(ref[i]));
  }
  return err / scale;
}

const std::vector<int64_t> kLengths = {5, 2, 4};

}  // namespace

TEST_CASE("attention: every mechanism matches a double-precision loop, padding gets weight 0",
          "[attention][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(1);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  for (const std::string& name : heed::attention::attention_names()) {
    for (const int64_t tq : {int64_t{1}, int64_t{3}}) {
      Fixture f(name, 2);
      const Tensor query = heed::test::random_tensor(Shape{tq, kN, kQ}, rng);
      f.attention->prepare(keys, kLengths, false);
      Tensor context, weights;
      f.attention->forward(query, 0, context, &weights, nullptr);
      INFO(name << " Tq=" << tq);
      REQUIRE(weights.shape() == Shape{kN, tq, kS});
      if (name == "none") {
        CHECK(f.attention->context_size() == 0);
        for (float w : weights.to_vector()) CHECK(w == 0.f);
        continue;
      }
      std::vector<double> ref_context, ref_weights;
      reference_forward(name, f, keys, kLengths, query, ref_context, ref_weights);
      CHECK(max_rel(ref_context, context) < 1e-5);
      CHECK(max_rel(ref_weights, weights) < 1e-5);
      for (int64_t b = 0; b < kN; ++b) {
        for (int64_t t = 0; t < tq; ++t) {
          for (int64_t i = kLengths[size_t(b)]; i < kS; ++i) {
            CHECK(weights.data()[(b * tq + t) * kS + i] == 0.f);
          }
        }
      }
    }
  }
}

TEST_CASE("attention: finite-difference gradients for every registered mechanism and normaliser",
          "[attention][fast]") {
  heed::onednn::set_threads(1);
  std::vector<std::pair<std::string, heed::attention::Normalizer>> cases;
  for (const std::string& name : heed::attention::attention_names()) {
    cases.emplace_back(name, heed::attention::Normalizer::kSoftmax);
    if (heed::attention::attention_info(name).traits.normalizes) {
      cases.emplace_back(name, heed::attention::Normalizer::kSparsemax);
    }
  }
  for (const auto& [name, normalizer] : cases) {
    Fixture f(name, 3, normalizer);
    heed::Rng rng = heed::make_rng(4);
    Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
    Tensor q1 = heed::test::random_tensor(Shape{1, kN, kQ}, rng);
    Tensor q2 = heed::test::random_tensor(Shape{2, kN, kQ}, rng);
    const int64_t width = std::max<int64_t>(f.attention->context_size(), 1);
    const heed::test::Projection p1(Shape{1, kN, width}, rng), p2(Shape{2, kN, width}, rng);
    // Loss = P1(context(q1)) + P2(context(q2)), two forward calls before finish_backward.
    auto loss = [&] {
      f.attention->weights_changed();
      f.attention->prepare(keys, kLengths, false);
      if (f.attention->context_size() == 0) return 0.0;
      Tensor c1, c2;
      f.attention->forward(q1, 0, c1, nullptr, nullptr);
      f.attention->forward(q2, 0, c2, nullptr, nullptr);
      return p1(c1) + p2(c2);
    };
    f.store.zero_grad();
    f.attention->prepare(keys, kLengths, true);
    AttentionTape t1, t2;
    Tensor c1, c2, dq1, dq2;
    f.attention->forward(q1, 0, c1, nullptr, &t1);
    f.attention->forward(q2, 0, c2, nullptr, &t2);
    Tensor d_keys(keys.shape());
    if (f.attention->context_size() > 0) {
      f.attention->backward(t2, p2.grad(), dq2);
      f.attention->backward(t1, p1.grad(), dq1);
    } else {
      Tensor none(Shape{2, kN, 1});
      f.attention->backward(t2, none, dq2);
      f.attention->backward(t1, none, dq1);
    }
    f.attention->finish_backward(d_keys);
    std::vector<heed::test::GradParam> params = {heed::test::grad_param("keys", keys, d_keys),
                                                 heed::test::grad_param("q1", q1, dq1),
                                                 heed::test::grad_param("q2", q2, dq2)};
    for (auto* p : f.store.all())
      params.push_back(heed::test::grad_param(p->name, p->value, p->grad));
    heed::test::GradCheckOptions options;
    options.eps = 1e-2;
    options.max_coords = 40;
    const auto result = heed::test::gradcheck(loss, params, options);
    INFO(name << " " << heed::attention::to_string(normalizer) << "\n" << result.report);
    CHECK(result.ok);
    CHECK(result.checked > 0);
  }
}

TEST_CASE("attention: a sentence alone equals the same sentence padded in a batch",
          "[attention][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(5);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  const Tensor query = heed::test::random_tensor(Shape{2, kN, kQ}, rng);
  // Gradient only through sentence 1 (length 2), so the batch's parameter gradients are that
  // sentence's alone.
  Tensor d_context = heed::test::random_tensor(Shape{2, kN, kK}, rng);
  for (int64_t t = 0; t < 2; ++t) {
    for (int64_t b : {int64_t{0}, int64_t{2}}) {
      for (int64_t k = 0; k < kK; ++k) d_context.data()[(t * kN + b) * kK + k] = 0.f;
    }
  }
  constexpr int64_t kRow = 1, kLen = 2;
  for (const std::string& name : heed::attention::attention_names()) {
    if (name == "none") continue;
    Fixture f(name, 6);
    f.store.zero_grad();
    f.attention->prepare(keys, kLengths, true);
    AttentionTape tape;
    Tensor context, weights, d_query, d_keys(keys.shape());
    f.attention->forward(query, 0, context, &weights, &tape);
    f.attention->backward(tape, d_context, d_query);
    f.attention->finish_backward(d_keys);
    std::vector<std::vector<float>> grads_batch;
    for (auto* p : f.store.all()) grads_batch.push_back(p->grad.to_vector());

    // Sentence 1 alone: keys [2, 1, K], query [2, 1, Q].
    Tensor alone_keys(Shape{kLen, 1, kK}), alone_query(Shape{2, 1, kQ}), alone_dc(Shape{2, 1, kK});
    for (int64_t i = 0; i < kLen; ++i) {
      for (int64_t k = 0; k < kK; ++k) {
        alone_keys.data()[i * kK + k] = keys.data()[(i * kN + kRow) * kK + k];
      }
    }
    for (int64_t t = 0; t < 2; ++t) {
      for (int64_t k = 0; k < kQ; ++k) {
        alone_query.data()[t * kQ + k] = query.data()[(t * kN + kRow) * kQ + k];
      }
      for (int64_t k = 0; k < kK; ++k) {
        alone_dc.data()[t * kK + k] = d_context.data()[(t * kN + kRow) * kK + k];
      }
    }
    f.store.zero_grad();
    f.attention->prepare(alone_keys, {kLen}, true);
    AttentionTape alone_tape;
    Tensor c1, w1, dq1, dk1(alone_keys.shape());
    f.attention->forward(alone_query, 0, c1, &w1, &alone_tape);
    f.attention->backward(alone_tape, alone_dc, dq1);
    f.attention->finish_backward(dk1);
    INFO(name);
    for (int64_t t = 0; t < 2; ++t) {
      for (int64_t k = 0; k < kK; ++k) {
        CHECK(std::fabs(c1.data()[t * kK + k] - context.data()[(t * kN + kRow) * kK + k]) < 1e-5f);
      }
      for (int64_t k = 0; k < kQ; ++k) {
        CHECK(std::fabs(dq1.data()[t * kQ + k] - d_query.data()[(t * kN + kRow) * kQ + k]) < 1e-5f);
      }
      for (int64_t i = 0; i < kS; ++i) {
        const float batch_w = weights.data()[(kRow * 2 + t) * kS + i];
        if (i < kLen) {
          CHECK(std::fabs(w1.data()[t * kLen + i] - batch_w) < 1e-5f);
        } else {
          CHECK(batch_w == 0.f);
        }
      }
    }
    for (int64_t i = 0; i < kS; ++i) {
      for (int64_t k = 0; k < kK; ++k) {
        const float batch_dk = d_keys.data()[(i * kN + kRow) * kK + k];
        if (i < kLen) {
          CHECK(std::fabs(dk1.data()[i * kK + k] - batch_dk) < 1e-5f);
        } else {
          CHECK(batch_dk == 0.f);  // padded keys get no gradient
        }
      }
    }
    for (size_t p = 0; p < grads_batch.size(); ++p) {
      const std::vector<float> g = f.store.all()[p]->grad.to_vector();
      for (size_t k = 0; k < g.size(); ++k) CHECK(std::fabs(g[k] - grads_batch[p][k]) < 1e-5f);
    }
  }
}

TEST_CASE("attention: all steps at once equal step by step, forward and backward",
          "[attention][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(7);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  const Tensor query = heed::test::random_tensor(Shape{3, kN, kQ}, rng);
  const Tensor d_context = heed::test::random_tensor(Shape{3, kN, kK}, rng);
  for (const std::string& name : heed::attention::attention_names()) {
    if (name == "none") continue;
    Fixture f(name, 8);
    f.store.zero_grad();
    f.attention->prepare(keys, kLengths, true);
    AttentionTape tape;
    Tensor all, d_query_all, d_keys_all(keys.shape());
    f.attention->forward(query, 0, all, nullptr, &tape);
    f.attention->backward(tape, d_context, d_query_all);
    f.attention->finish_backward(d_keys_all);
    std::vector<std::vector<float>> grads_all;
    for (auto* p : f.store.all()) grads_all.push_back(p->grad.to_vector());

    f.store.zero_grad();
    f.attention->prepare(keys, kLengths, true);
    std::vector<AttentionTape> tapes(3);
    std::vector<Tensor> contexts(3), d_queries(3);
    for (int64_t t = 0; t < 3; ++t) {
      f.attention->forward(query.slice(t, t + 1), t, contexts[size_t(t)], nullptr,
                           &tapes[size_t(t)]);
    }
    for (int64_t t = 3; t-- > 0;) {
      f.attention->backward(tapes[size_t(t)], d_context.slice(t, t + 1), d_queries[size_t(t)]);
    }
    Tensor d_keys_steps(keys.shape());
    f.attention->finish_backward(d_keys_steps);
    INFO(name);
    for (int64_t t = 0; t < 3; ++t) {
      CHECK(heed::tensor::max_abs_diff(all.slice(t, t + 1), contexts[size_t(t)]) < 1e-6);
      CHECK(heed::tensor::max_abs_diff(d_query_all.slice(t, t + 1), d_queries[size_t(t)]) < 1e-6);
    }
    CHECK(heed::tensor::max_abs_diff(d_keys_all, d_keys_steps) < 1e-6);
    for (size_t i = 0; i < grads_all.size(); ++i) {
      const std::vector<float> g = f.store.all()[i]->grad.to_vector();
      for (size_t k = 0; k < g.size(); ++k) CHECK(std::fabs(g[k] - grads_all[i][k]) < 1e-5f);
    }
  }
}

TEST_CASE("attention: select() reorders the prepared rows for beam search", "[attention][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(9);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  // Successive selects compose (the second one picks rows of the first's result): growing,
  // repeating, shrinking.
  const std::vector<std::vector<int64_t>> steps = {{2, 0, 0}, {2, 0, 0, 1}, {1, 3, 0}, {2}};
  const Tensor keys_before = keys.clone();
  for (const std::string& name : heed::attention::attention_names()) {
    if (name == "none") continue;
    Fixture f(name, 10);
    std::vector<int64_t> original = {0, 1, 2};  // original row of each current row
    for (int repeat = 0; repeat < 2; ++repeat) {
      f.attention->prepare(keys, kLengths, false);
      original = {0, 1, 2};
      for (const std::vector<int64_t>& rows : steps) {
        f.attention->select(rows);
        std::vector<int64_t> next;
        for (int64_t r : rows) next.push_back(original[size_t(r)]);
        original = next;
        const int64_t m = int64_t(original.size());
        const Tensor query = heed::test::random_tensor(Shape{1, m, kQ}, rng);
        Tensor selected, w_selected;
        f.attention->forward(query, 0, selected, &w_selected, nullptr);

        // The same rows built directly, by a fresh mechanism with the same parameters.
        Fixture g(name, 10);
        Tensor gathered(Shape{kS, m, kK});
        std::vector<int64_t> lengths;
        for (int64_t r = 0; r < m; ++r) {
          const int64_t o = original[size_t(r)];
          lengths.push_back(kLengths[size_t(o)]);
          for (int64_t i = 0; i < kS; ++i) {
            for (int64_t k = 0; k < kK; ++k) {
              gathered.data()[(i * m + r) * kK + k] = keys.data()[(i * kN + o) * kK + k];
            }
          }
        }
        g.attention->prepare(gathered, lengths, false);
        Tensor direct, w_direct;
        g.attention->forward(query, 0, direct, &w_direct, nullptr);
        INFO(name << " after " << rows.size() << " rows, repeat " << repeat);
        CHECK(heed::tensor::max_abs_diff(selected, direct) < 1e-6);
        CHECK(heed::tensor::max_abs_diff(w_selected, w_direct) < 1e-6);
      }
    }
    CHECK(heed::tensor::max_abs_diff(keys, keys_before) == 0);  // the caller's keys untouched
  }
}

TEST_CASE("attention: bf16 precision is close to f32", "[attention][fast]") {
  if (!heed::onednn::bf16_supported()) {
    WARN("SKIPPED: bf16 not supported by oneDNN on this CPU");
    return;
  }
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(11);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  const Tensor query = heed::test::random_tensor(Shape{2, kN, kQ}, rng);
  const Tensor d_context = heed::test::random_tensor(Shape{2, kN, kK}, rng);
  for (const std::string& name : heed::attention::attention_names()) {
    if (name == "none") continue;
    Tensor contexts[2], d_queries[2], d_keys[2];
    for (int i = 0; i < 2; ++i) {
      AttentionConfig c = config_for(name);
      c.precision = i == 0 ? heed::onednn::Precision::kF32 : heed::onednn::Precision::kBF16;
      ParameterStore store;
      auto attention = heed::attention::make_attention(name, c, store, "decoder/attention/");
      heed::Rng prng = heed::make_rng(12);
      for (auto* p : store.all()) heed::test::fill_uniform(p->value, prng, -0.5f, 0.5f);
      attention->weights_changed();
      attention->prepare(keys, kLengths, true);
      AttentionTape tape;
      attention->forward(query, 0, contexts[i], nullptr, &tape);
      attention->backward(tape, d_context, d_queries[i]);
      d_keys[i].resize(keys.shape());
      d_keys[i].zero();
      attention->finish_backward(d_keys[i]);
    }
    INFO(name);
    CHECK(heed::tensor::max_abs_diff(contexts[0], contexts[1]) < 3e-2);
    CHECK(heed::tensor::max_abs_diff(d_queries[0], d_queries[1]) < 3e-2);
    CHECK(heed::tensor::max_abs_diff(d_keys[0], d_keys[1]) < 3e-2);
  }
}

TEST_CASE("attention registry: names, aliases, errors and parameter names", "[attention][fast]") {
  const auto names = heed::attention::attention_names();
  for (const char* n : {"additive", "dot", "general", "none", "scaled-dot"}) {
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  }
  CHECK(heed::attention::canonical_attention_name("mlp") == "additive");
  try {
    heed::attention::canonical_attention_name("nope");
    FAIL("no error");
  } catch (const heed::ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "unknown attention 'nope' (valid: additive, dot, general, local-m, local-p, none, "
          "scaled-dot)");
  }
  AttentionConfig c = config();
  c.query_size = 8;
  ParameterStore store;
  CHECK_THROWS_AS(heed::attention::make_attention("dot", c, store, "x/"), heed::ConfigError);
  CHECK_THROWS_AS(heed::attention::make_attention("scaled-dot", c, store, "x/"), heed::ConfigError);
  Fixture general("general", 1), additive("mlp", 1), dot("dot", 1);
  CHECK(general.store.size() == 1);
  CHECK(general.store.get("decoder/attention/weight").value.shape() == Shape{kQ, kK});
  CHECK(additive.attention->name() == "additive");
  CHECK(additive.store.get("decoder/attention/w_query").value.shape() == Shape{kA, kQ});
  CHECK(additive.store.get("decoder/attention/w_key").value.shape() == Shape{kA, kK});
  CHECK(additive.store.get("decoder/attention/bias").value.shape() == Shape{kA});
  CHECK(additive.store.get("decoder/attention/v").value.shape() == Shape{kA});
  CHECK(dot.store.size() == 0);
  CHECK(heed::attention::attention_info("additive").has_parameters);
  CHECK_FALSE(heed::attention::attention_info("scaled-dot").has_parameters);
}

TEST_CASE(
    "local attention: windows around the target position or the predicted centre, at "
    "several steps",
    "[attention][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(13);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  for (const std::string name : {"local-m", "local-p"}) {
    Fixture f(name, 14);
    REQUIRE(f.window == kWindow);
    // Steps 0…3 slide local-m's window along the sentences; from step 6 on every row is past
    // its sentence's end.
    for (const int64_t step : {int64_t{0}, int64_t{1}, int64_t{3}, int64_t{6}}) {
      const Tensor query = heed::test::random_tensor(Shape{3, kN, kQ}, rng);
      f.attention->prepare(keys, kLengths, false);
      Tensor context, weights;
      f.attention->forward(query, step, context, &weights, nullptr);
      std::vector<double> ref_context, ref_weights;
      reference_forward(name, f, keys, kLengths, query, ref_context, ref_weights, step);
      INFO(name << " step " << step);
      CHECK(max_rel(ref_context, context) < 1e-5);
      CHECK(max_rel(ref_weights, weights) < 1e-5);
    }
  }
}

TEST_CASE("local attention: weight and gradient exactly 0 outside the windows",
          "[attention][fast]") {
  heed::onednn::set_threads(1);
  constexpr int64_t kLong = 9;
  const std::vector<int64_t> lengths = {9, 6};
  heed::Rng rng = heed::make_rng(15);
  const Tensor keys = heed::test::random_tensor(Shape{kLong, 2, kK}, rng);
  for (const std::string name : {"local-m", "local-p"}) {
    Fixture f(name, 16);
    for (const int64_t step : {int64_t{2}, int64_t{20}}) {
      const Tensor query = heed::test::random_tensor(Shape{1, 2, kQ}, rng);
      const Tensor d_context = heed::test::random_tensor(Shape{1, 2, kK}, rng);
      f.store.zero_grad();
      f.attention->prepare(keys, lengths, true);
      AttentionTape tape;
      Tensor context, weights, d_query, d_keys(keys.shape());
      f.attention->forward(query, step, context, &weights, &tape);
      f.attention->backward(tape, d_context, d_query);
      f.attention->finish_backward(d_keys);
      for (int64_t b = 0; b < 2; ++b) {
        const int64_t length = lengths[size_t(b)];
        // The window [m − D, m + D] around the centre rounded and clamped into the sentence:
        // local-m past the sentence's end attends its last D + 1 positions.
        const double centre = name == "local-m" ? double(step) : double(tape.centres.data()[b]);
        const auto [begin, end] = reference_window(centre, kWindow, length);
        if (name == "local-m" && step == 20) {
          CHECK(begin == length - kWindow - 1);
          CHECK(end == length);
        }
        INFO(name << " step " << step << " sentence " << b << " window [" << begin << ", " << end
                  << ")");
        double sum = 0;
        for (int64_t i = 0; i < kLong; ++i) {
          const float w = weights.data()[b * kLong + i];
          bool zero_grad = true;
          for (int64_t k = 0; k < kK; ++k) zero_grad &= d_keys.data()[(i * 2 + b) * kK + k] == 0.f;
          if (i >= begin && i < end) {
            CHECK(w > 0.f);
            CHECK_FALSE(zero_grad);
            sum += double(w);
          } else {
            CHECK(w == 0.f);
            CHECK(zero_grad);
          }
        }
        // The Gaussian of local-p is not renormalised (Luong): its weights sum to less than 1.
        if (name == "local-m") CHECK(std::fabs(sum - 1.0) < 1e-6);
        if (name == "local-p") CHECK(sum < 1.0);
      }
    }
  }
}

TEST_CASE("local attention: parameters and the --window option", "[attention][fast]") {
  Fixture m("local-m", 1), p("local-p", 1);
  CHECK(m.store.size() == 1);
  CHECK(m.store.get("decoder/attention/weight").value.shape() == Shape{kQ, kK});
  CHECK(p.store.size() == 3);
  CHECK(p.store.get("decoder/attention/weight").value.shape() == Shape{kQ, kK});
  CHECK(p.store.get("decoder/attention/w_position").value.shape() == Shape{kA, kQ});
  CHECK(p.store.get("decoder/attention/v_position").value.shape() == Shape{kA});
  const auto declared = heed::attention::declared_options();
  const auto window = std::find_if(declared.begin(), declared.end(),
                                   [](const auto& d) { return d.spec.name == "window"; });
  REQUIRE(window != declared.end());
  CHECK(window->spec.integer);
  CHECK(window->spec.default_value == 10);
  CHECK(window->mechanisms == std::vector<std::string>{"local-m", "local-p"});
  AttentionConfig c = config();
  c.options["window"] = 0;
  ParameterStore store;
  CHECK_THROWS_AS(heed::attention::make_attention("local-p", c, store, "x/"), heed::ConfigError);
  c.options["window"] = 3;
  CHECK_THROWS_AS(heed::attention::make_attention("general", c, store, "y/"), heed::ConfigError);
}
