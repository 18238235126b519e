// Every registered attention mechanism: forward against a double-precision loop, finite-
// difference gradients (one loop over the registry, so a new mechanism is covered by adding
// it), exactness under padding, all-steps-at-once = step by step, select() for beam search,
// and the registry's names and errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
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
// multi-head here: two heads of two columns (A = 4), so the checks see more than one head and
// more than one column per head.
constexpr int64_t kHeads = 2;

AttentionConfig config(const std::string& name) {
  AttentionConfig c;
  c.query_size = kQ;
  c.key_size = kK;
  c.attention_dim = kA;
  if (name == "multi-head") c.options["heads"] = kHeads;
  return c;
}

struct Fixture {
  ParameterStore store;
  std::unique_ptr<Attention> attention;
  Fixture(const std::string& name, uint64_t seed,
          heed::attention::Normalizer normalizer = heed::attention::Normalizer::kSoftmax) {
    AttentionConfig c = config(name);
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
  } else if (name == "general") {
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

// Softmax of e in place.
void reference_softmax(std::vector<double>& e) {
  double mx = -1e300, z = 0;
  for (double x : e) mx = std::max(mx, x);
  for (double& x : e) z += (x = std::exp(x - mx));
  for (double& x : e) x /= z;
}

// y [rows] = W [rows, cols] x [cols] in double.
std::vector<double> reference_product(const float* w, int64_t rows, int64_t cols,
                                      const std::vector<double>& x) {
  std::vector<double> y(size_t(rows), 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) y[size_t(r)] += double(w[r * cols + c]) * x[size_t(c)];
  }
  return y;
}

std::vector<double> to_double(const float* x, int64_t size) {
  return std::vector<double>(x, x + size);
}

// multi-head: context [Tq, N, A] = W_o [c_1; …; c_H] with each head's softmax over its scaled
// dot products of projections; weights = the mean of the heads' weights.
void reference_multi_head(const Fixture& f, const Tensor& keys, const std::vector<int64_t>& lengths,
                          const Tensor& query, std::vector<double>& context,
                          std::vector<double>& weights) {
  const int64_t tq = query.dim(0), n = keys.dim(1), s = keys.dim(0), d = kA / kHeads;
  context.assign(size_t(tq * n * kA), 0.0);
  weights.assign(size_t(n * tq * s), 0.0);
  for (int64_t b = 0; b < n; ++b) {
    const int64_t len = lengths[size_t(b)];
    std::vector<std::vector<double>> k(static_cast<size_t>(len)), v(static_cast<size_t>(len));
    for (int64_t i = 0; i < len; ++i) {
      const std::vector<double> h = to_double(keys.data() + (i * n + b) * kK, kK);
      k[size_t(i)] = reference_product(f.param("w_key"), kA, kK, h);
      v[size_t(i)] = reference_product(f.param("w_value"), kA, kK, h);
    }
    for (int64_t t = 0; t < tq; ++t) {
      const std::vector<double> q = reference_product(
          f.param("w_query"), kA, kQ, to_double(query.data() + (t * n + b) * kQ, kQ));
      std::vector<double> heads(size_t(kA), 0.0);
      for (int64_t h = 0; h < kHeads; ++h) {
        std::vector<double> e(size_t(len), 0.0);
        for (int64_t i = 0; i < len; ++i) {
          for (int64_t j = h * d; j < (h + 1) * d; ++j)
            e[size_t(i)] += q[size_t(j)] * k[size_t(i)][size_t(j)];
          e[size_t(i)] /= std::sqrt(double(d));
        }
        reference_softmax(e);
        for (int64_t i = 0; i < len; ++i) {
          weights[size_t((b * tq + t) * s + i)] += e[size_t(i)] / double(kHeads);
          for (int64_t j = h * d; j < (h + 1) * d; ++j)
            heads[size_t(j)] += e[size_t(i)] * v[size_t(i)][size_t(j)];
        }
      }
      const std::vector<double> c = reference_product(f.param("w_out"), kA, kA, heads);
      for (int64_t j = 0; j < kA; ++j) context[size_t((t * n + b) * kA + j)] = c[size_t(j)];
    }
  }
}

// φ(x) = elu(x) + 1.
double reference_feature(double x) {
  return x > 0 ? x + 1 : std::exp(x);
}

// Context [Tq, N, K] and weights [N, Tq, S] in double.
void reference_forward(const std::string& name, const Fixture& f, const Tensor& keys,
                       const std::vector<int64_t>& lengths, const Tensor& query,
                       std::vector<double>& context, std::vector<double>& weights) {
  if (name == "multi-head") return reference_multi_head(f, keys, lengths, query, context, weights);
  const int64_t tq = query.dim(0), n = keys.dim(1), s = keys.dim(0);
  context.assign(size_t(tq * n * kK), 0.0);
  weights.assign(size_t(n * tq * s), 0.0);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t t = 0; t < tq; ++t) {
      const float* q = query.data() + (t * n + b) * kQ;
      std::vector<double> e(size_t(lengths[size_t(b)]));
      for (int64_t i = 0; i < lengths[size_t(b)]; ++i) {
        const float* h = keys.data() + (i * n + b) * kK;
        if (name == "linear") {
          // Kernel weights φ(q)·φ(h_s), normalised by their sum (below).
          e[size_t(i)] = 0;
          for (int64_t k = 0; k < kK; ++k) {
            e[size_t(i)] += reference_feature(q[k]) * reference_feature(h[k]);
          }
        } else {
          e[size_t(i)] = reference_score(name, f, q, h);
        }
      }
      if (name == "linear") {
        double z = 0;
        for (double x : e) z += x;
        for (double& x : e) x /= z;
      } else {
        reference_softmax(e);
      }
      for (int64_t i = 0; i < lengths[size_t(b)]; ++i) {
        const double a = e[size_t(i)];
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

// The weights [N, 2, S] of two random queries (inference), each row checked to be a
// distribution: non-negative, summing to 1.
Tensor checked_weights(Fixture& f, uint64_t seed) {
  heed::Rng rng = heed::make_rng(seed);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  const Tensor query = heed::test::random_tensor(Shape{2, kN, kQ}, rng);
  f.attention->prepare(keys, kLengths, false);
  Tensor context, weights;
  f.attention->forward(query, 0, context, &weights, nullptr);
  CHECK(context.shape() == Shape{2, kN, f.attention->context_size()});
  for (int64_t r = 0; r < kN * 2; ++r) {
    double sum = 0;
    for (int64_t i = 0; i < kS; ++i) {
      CHECK(weights.data()[r * kS + i] >= 0.f);
      sum += double(weights.data()[r * kS + i]);
    }
    CHECK(std::fabs(sum - 1.0) < 1e-5);
  }
  return weights;
}

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
  constexpr int64_t kRow = 1, kLen = 2;
  for (const std::string& name : heed::attention::attention_names()) {
    if (name == "none") continue;
    Fixture f(name, 6);
    const int64_t kC = f.attention->context_size();
    // Gradient only through sentence 1 (length 2), so the batch's parameter gradients are that
    // sentence's alone.
    heed::Rng d_rng = heed::make_rng(55);
    Tensor d_context = heed::test::random_tensor(Shape{2, kN, kC}, d_rng);
    for (int64_t t = 0; t < 2; ++t) {
      for (int64_t b : {int64_t{0}, int64_t{2}}) {
        for (int64_t k = 0; k < kC; ++k) d_context.data()[(t * kN + b) * kC + k] = 0.f;
      }
    }
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
    Tensor alone_keys(Shape{kLen, 1, kK}), alone_query(Shape{2, 1, kQ}), alone_dc(Shape{2, 1, kC});
    for (int64_t i = 0; i < kLen; ++i) {
      for (int64_t k = 0; k < kK; ++k) {
        alone_keys.data()[i * kK + k] = keys.data()[(i * kN + kRow) * kK + k];
      }
    }
    for (int64_t t = 0; t < 2; ++t) {
      for (int64_t k = 0; k < kQ; ++k) {
        alone_query.data()[t * kQ + k] = query.data()[(t * kN + kRow) * kQ + k];
      }
      for (int64_t k = 0; k < kC; ++k) {
        alone_dc.data()[t * kC + k] = d_context.data()[(t * kN + kRow) * kC + k];
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
      for (int64_t k = 0; k < kC; ++k) {
        CHECK(std::fabs(c1.data()[t * kC + k] - context.data()[(t * kN + kRow) * kC + k]) < 1e-5f);
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
  for (const std::string& name : heed::attention::attention_names()) {
    if (name == "none") continue;
    Fixture f(name, 8);
    heed::Rng d_rng = heed::make_rng(77);
    const Tensor d_context =
        heed::test::random_tensor(Shape{3, kN, f.attention->context_size()}, d_rng);
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
  for (const std::string& name : heed::attention::attention_names()) {
    if (name == "none") continue;
    heed::Rng d_rng = heed::make_rng(13);
    const Tensor d_context = heed::test::random_tensor(
        Shape{2, kN, heed::attention::context_size(name, config(name))}, d_rng);
    Tensor contexts[2], d_queries[2], d_keys[2];
    for (int i = 0; i < 2; ++i) {
      AttentionConfig c = config(name);
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
          "unknown attention 'nope' (valid: additive, dot, general, linear, multi-head, none, "
          "scaled-dot)");
  }
  AttentionConfig c = config("dot");
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

TEST_CASE("attention multi-head: heads, context width A, parameters and errors",
          "[attention][fast]") {
  AttentionConfig c = config("multi-head");
  CHECK(heed::attention::context_size("multi-head", c) == kA);
  c.attention_dim = 0;  // 0 → the query size
  CHECK(heed::attention::context_size("multi-head", c) == kQ);
  Fixture f("multi-head", 1);
  CHECK(f.attention->context_size() == kA);
  CHECK(f.store.size() == 4);
  CHECK(f.store.get("decoder/attention/w_query").value.shape() == Shape{kA, kQ});
  CHECK(f.store.get("decoder/attention/w_key").value.shape() == Shape{kA, kK});
  CHECK(f.store.get("decoder/attention/w_value").value.shape() == Shape{kA, kK});
  CHECK(f.store.get("decoder/attention/w_out").value.shape() == Shape{kA, kA});
  // The alignment weights are the mean of the heads': each row still sums to 1.
  checked_weights(f, 21);
  ParameterStore store;
  AttentionConfig odd = config("multi-head");
  odd.options["heads"] = 3;  // does not divide A = 4
  try {
    heed::attention::make_attention("multi-head", odd, store, "x/");
    FAIL("no error");
  } catch (const heed::ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "attention 'multi-head': --heads 3 must divide --attention-dim 4");
  }
  odd.options["heads"] = 65;
  CHECK_THROWS_AS(heed::attention::make_attention("multi-head", odd, store, "x/"),
                  heed::ConfigError);
  CHECK(heed::attention::attention_info("multi-head").traits.normalizes);
}

TEST_CASE("attention linear: no parameters, no normaliser, Q = K, weights sum to 1",
          "[attention][fast]") {
  const auto& info = heed::attention::attention_info("linear");
  CHECK_FALSE(info.has_parameters);
  CHECK_FALSE(info.traits.position_weights);
  CHECK_FALSE(info.traits.normalizes);
  ParameterStore store;
  AttentionConfig c = config("linear");
  c.normalizer = heed::attention::Normalizer::kSparsemax;
  CHECK_THROWS_AS(heed::attention::make_attention("linear", c, store, "x/"), heed::ConfigError);
  c = config("linear");
  c.query_size = kK + 1;
  CHECK_THROWS_AS(heed::attention::make_attention("linear", c, store, "x/"), heed::ConfigError);
  Fixture f("linear", 1);
  CHECK(f.store.size() == 0);
  // φ > 0: every position of the sentence gets a positive weight, padding exactly 0.
  const Tensor weights = checked_weights(f, 22);
  for (int64_t b = 0; b < kN; ++b) {
    for (int64_t r = b * 2; r < b * 2 + 2; ++r) {
      for (int64_t i = 0; i < kS; ++i) {
        const float w = weights.data()[r * kS + i];
        CHECK((i < kLengths[size_t(b)] ? w > 0.f : w == 0.f));
      }
    }
  }
}
