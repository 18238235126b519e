// Every registered attention mechanism: forward against a double-precision loop, finite-
// difference gradients (one loop over the registry, so a new mechanism is covered by adding
// it, and each on/off option of a mechanism by declaring it: support/tested_attentions.h),
// exactness under padding, all-steps-at-once = step by step, select() for beam search, and the
// registry's names and errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "heed/attention/feed_forward_pool.h"
#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"
#include "heed/common/error.h"
#include "heed/onednn/context.h"
#include "heed/tensor/tensor_ops.h"
#include "support/gradcheck.h"
#include "support/tested_attentions.h"

using heed::attention::Attention;
using heed::attention::AttentionConfig;
using heed::attention::AttentionTape;
using heed::layers::ParameterStore;
using heed::tensor::Shape;
using heed::tensor::Tensor;
using heed::test::TestedAttention;

namespace {

constexpr int64_t kS = 5, kN = 3, kK = 6, kQ = 6, kA = 4;
// multi-head here: two heads of two columns (A = 4), so the checks see more than one head and
// more than one column per head.
constexpr int64_t kHeads = 2;

AttentionConfig config(const std::string& name = "") {
  AttentionConfig c;
  c.query_size = kQ;
  c.key_size = kK;
  c.attention_dim = kA;
  if (name == "multi-head") c.options["heads"] = kHeads;
  return c;
}

// Mechanisms with a local window (local-m, local-p) get a narrow one, D = 1, so that every test
// here covers windows smaller than the sentences.
constexpr int64_t kWindow = 1;
AttentionConfig config_for(const std::string& name) {
  AttentionConfig c = config(name);
  for (const heed::attention::OptionSpec& spec : heed::attention::attention_info(name).options) {
    if (spec.name == "window") c.options["window"] = kWindow;
  }
  return c;
}

// config_for(tested.name) with tested's options.
AttentionConfig tested_config(const TestedAttention& tested) {
  AttentionConfig c = config_for(tested.name);
  for (const auto& [key, value] : tested.options) c.options[key] = value;
  return c;
}

struct Fixture {
  ParameterStore store;
  std::unique_ptr<Attention> attention;
  int64_t window = -1;  // half width D of a local mechanism's window, -1 for the others
  heed::attention::OptionValues options;  // every option of the mechanism, resolved
  Fixture(const std::string& name, uint64_t seed,
          heed::attention::Normalizer normalizer = heed::attention::Normalizer::kSoftmax,
          const heed::attention::OptionValues& given = {}) {
    AttentionConfig c = config_for(name);
    for (const auto& [key, value] : given) c.options[key] = value;
    if (c.options.count("window")) window = int64_t(c.options.at("window"));
    c.normalizer = normalizer;
    options = heed::attention::resolved_config(name, c).options;
    attention = heed::attention::make_attention(name, c, store, "decoder/attention/");
    heed::Rng rng = heed::make_rng(seed);
    for (auto* p : store.all()) heed::test::fill_uniform(p->value, rng, -0.5f, 0.5f);
    attention->weights_changed();
  }
  Fixture(const TestedAttention& tested, uint64_t seed,
          heed::attention::Normalizer normalizer = heed::attention::Normalizer::kSoftmax)
      : Fixture(tested.name, seed, normalizer, tested.options) {}
  const float* param(const std::string& n) const {
    return store.get("decoder/attention/" + n).value.data();
  }
  // A switch of the mechanism (tested_attentions.h) is on.
  bool on(const std::string& option) const {
    return options.count(option) != 0 && options.at(option) != 0;
  }
};

double norm(const float* x, int64_t width) {
  double sum = 0;
  for (int64_t k = 0; k < width; ++k) sum += double(x[k]) * double(x[k]);
  return std::sqrt(sum);
}

// Scores in double for one query row q [Q] against key h [K] at source position s; coverage:
// cov is the sum of the earlier steps' weights at this position.
double reference_score(const std::string& name, const Fixture& f, const float* q, const float* h,
                       int64_t s, double cov = 0) {
  double e = 0;
  if (name == "dot" || name == "scaled-dot") {
    for (int64_t k = 0; k < kK; ++k) e += double(q[k]) * double(h[k]);
    if (name == "scaled-dot") e /= std::sqrt(double(kK));
    if (f.on("learn-temperature")) e *= std::exp(double(f.param("log_temperature")[0]));
  } else if (name == "general" || name == "scaled-general" || name == "local-m" ||
             name == "local-p") {
    const float* w = f.param("weight");  // [Q, K]
    for (int64_t i = 0; i < kQ; ++i) {
      double wh = 0;
      for (int64_t k = 0; k < kK; ++k) wh += double(w[i * kK + k]) * double(h[k]);
      e += double(q[i]) * wh;
    }
    if (name == "scaled-general") e *= double(f.param("scale")[0]);
  } else if (name == "additive" || name == "normed-additive") {
    const float *wq = f.param("w_query"), *wk = f.param("w_key"), *b = f.param("bias"),
                *v = f.param("v");
    for (int64_t a = 0; a < kA; ++a) {
      double pre = double(b[a]);
      for (int64_t i = 0; i < kQ; ++i) pre += double(wq[a * kQ + i]) * double(q[i]);
      for (int64_t k = 0; k < kK; ++k) pre += double(wk[a * kK + k]) * double(h[k]);
      e += double(v[a]) * std::tanh(pre);
    }
    if (name == "normed-additive") e *= double(f.param("scale")[0]) / norm(v, kA);
  } else if (name == "location") {
    const float* w = f.param("weight");  // [P, Q]: row s scores position s
    for (int64_t i = 0; i < kQ; ++i) e += double(w[s * kQ + i]) * double(q[i]);
  } else if (name == "cosine") {
    for (int64_t k = 0; k < kK; ++k) e += double(q[k]) * double(h[k]);
    e /= (norm(q, kQ) + 1e-13) * (norm(h, kK) + 1e-13);
  } else if (name == "coverage") {
    const float *wq = f.param("w_query"), *wk = f.param("w_key"), *b = f.param("bias"),
                *v = f.param("v"), *wc = f.param("w_coverage");
    for (int64_t a = 0; a < kA; ++a) {
      double pre = double(b[a]) + double(wc[a]) * cov;
      for (int64_t i = 0; i < kQ; ++i) pre += double(wq[a * kQ + i]) * double(q[i]);
      for (int64_t k = 0; k < kK; ++k) pre += double(wk[a * kK + k]) * double(h[k]);
      e += double(v[a]) * std::tanh(pre);
    }
  } else if (name == "ff-pool") {  // no query
    double pre = double(f.param("b")[0]);
    for (int64_t k = 0; k < kK; ++k) pre += double(f.param("w")[k]) * double(h[k]);
    e = std::tanh(pre);
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
// (--scale-scores 1) or unscaled dot products of projections; weights = the mean of the heads'
// weights.
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
          if (f.on("scale-scores")) e[size_t(i)] /= std::sqrt(double(d));
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

// Context [Tq, N, K] and weights [N, Tq, S] in double; query row t is target position step + t
// (coverage: the state starts at 0 at row 0).
// Local mechanisms: softmax over the window [round(p) − D, round(p) + D] of the centre p
// clamped into the sentence, times exp(−(s − p)² / 2σ²), σ = D/2, for local-p.
void reference_forward(const std::string& name, const Fixture& f, const Tensor& keys,
                       const std::vector<int64_t>& lengths, const Tensor& query,
                       std::vector<double>& context, std::vector<double>& weights,
                       int64_t step = 0) {
  if (name == "multi-head") return reference_multi_head(f, keys, lengths, query, context, weights);
  const int64_t tq = query.dim(0), n = keys.dim(1), s = keys.dim(0);
  context.assign(size_t(tq * n * kK), 0.0);
  weights.assign(size_t(n * tq * s), 0.0);
  for (int64_t b = 0; b < n; ++b) {
    std::vector<double> coverage(size_t(s), 0.0);
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
        const float* h = keys.data() + (i * n + b) * kK;
        if (name == "linear") {
          // Kernel weights φ(q)·φ(h_s), normalised by their sum (below).
          e[size_t(i)] = 0;
          for (int64_t k = 0; k < kK; ++k) {
            e[size_t(i)] += reference_feature(q[k]) * reference_feature(h[k]);
          }
        } else {
          e[size_t(i)] = reference_score(name, f, q, h, i, coverage[size_t(i)]);
        }
        mx = std::max(mx, e[size_t(i)]);
      }
      double z = 0;
      for (int64_t i = begin; i < end; ++i) {
        if (name != "linear") e[size_t(i)] = std::exp(e[size_t(i)] - mx);
        z += e[size_t(i)];
      }
      for (int64_t i = begin; i < end; ++i) {
        double a = e[size_t(i)] / z;
        if (name == "local-p") {
          const double sigma = double(f.window) / 2;
          a *= std::exp(-(double(i) - centre) * (double(i) - centre) / (2 * sigma * sigma));
        }
        weights[size_t((b * tq + t) * s + i)] = a;
        coverage[size_t(i)] += a;
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

bool stateful(const std::string& name) {
  return heed::attention::attention_info(name).traits.stateful;
}

// query [Tq, N, Q] whose row t is step step + t: one forward() for all rows, or, for a stateful
// mechanism (one step per call, attention.h), one per row, context and weights put together as
// one call would give them. tapes (if not null) gets one tape per call.
void forward_rows(Attention& attention, bool stepwise, const Tensor& query, int64_t step,
                  Tensor& context, Tensor* weights, std::vector<AttentionTape>* tapes) {
  const int64_t tq = query.dim(0), n = query.dim(1);
  const size_t calls = stepwise ? size_t(tq) : 1;
  if (tapes) tapes->resize(calls);
  if (!stepwise) {
    attention.forward(query, step, context, weights, tapes ? &tapes->front() : nullptr);
    return;
  }
  Tensor c, w;
  for (int64_t t = 0; t < tq; ++t) {
    attention.forward(query.slice(t, t + 1), step + t, c, weights ? &w : nullptr,
                      tapes ? &(*tapes)[size_t(t)] : nullptr);
    if (t == 0) context.resize(Shape{tq, n, c.dim(2)});
    std::copy(c.data(), c.data() + c.numel(), context.data() + t * c.numel());
    if (!weights) continue;
    const int64_t s = w.dim(2);
    if (t == 0) weights->resize(Shape{n, tq, s});
    for (int64_t b = 0; b < n; ++b) {
      std::copy(w.data() + b * s, w.data() + (b + 1) * s, weights->data() + (b * tq + t) * s);
    }
  }
}

// The backward of forward_rows: d_context [Tq, N, C] → d_query [Tq, N, Q], calls in reverse.
void backward_rows(Attention& attention, std::vector<AttentionTape>& tapes, const Tensor& d_context,
                   Tensor& d_query) {
  if (tapes.size() == 1) {
    attention.backward(tapes.front(), d_context, d_query);
    return;
  }
  Tensor dq;
  for (size_t t = tapes.size(); t-- > 0;) {
    attention.backward(tapes[t], d_context.slice(int64_t(t), int64_t(t) + 1), dq);
    if (t + 1 == tapes.size()) d_query.resize(Shape{int64_t(tapes.size()), dq.dim(1), dq.dim(2)});
    std::copy(dq.data(), dq.data() + dq.numel(), d_query.data() + int64_t(t) * dq.numel());
  }
}

// Finite differences of loss against the inputs given (with their analytic gradients) and
// every parameter in store.
heed::test::GradCheckResult check_gradients(const std::function<double()>& loss,
                                            std::vector<heed::test::GradParam> params,
                                            ParameterStore& store) {
  for (auto* p : store.all()) params.push_back(heed::test::grad_param(p->name, p->value, p->grad));
  heed::test::GradCheckOptions options;
  options.eps = 1e-2;
  options.max_coords = 40;
  return heed::test::gradcheck(loss, params, options);
}

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
  for (const TestedAttention& tested : heed::test::tested_attentions()) {
    const std::string& name = tested.name;
    for (const int64_t tq : {int64_t{1}, int64_t{3}}) {
      Fixture f(tested, 2);
      const Tensor query = heed::test::random_tensor(Shape{tq, kN, kQ}, rng);
      f.attention->prepare(keys, kLengths, false);
      Tensor context, weights;
      forward_rows(*f.attention, stateful(name), query, 0, context, &weights, nullptr);
      INFO(tested.label() << " Tq=" << tq);
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
  std::vector<std::pair<TestedAttention, heed::attention::Normalizer>> cases;
  for (const TestedAttention& tested : heed::test::tested_attentions()) {
    cases.emplace_back(tested, heed::attention::Normalizer::kSoftmax);
    if (heed::attention::attention_info(tested.name).traits.normalizes) {
      cases.emplace_back(tested, heed::attention::Normalizer::kSparsemax);
    }
  }
  for (const auto& [tested, normalizer] : cases) {
    const std::string& name = tested.name;
    Fixture f(tested, 3, normalizer);
    heed::Rng rng = heed::make_rng(4);
    Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
    Tensor q1 = heed::test::random_tensor(Shape{1, kN, kQ}, rng);
    Tensor q2 = heed::test::random_tensor(Shape{2, kN, kQ}, rng);
    const int64_t width = std::max<int64_t>(f.attention->context_size(), 1);
    const heed::test::Projection p1(Shape{1, kN, width}, rng), p2(Shape{2, kN, width}, rng);
    // Loss = P1(context(q1)) + P2(context(q2)) + the mechanism's own loss term, two forward
    // calls before finish_backward. A stateful mechanism runs q2's rows as steps 1 and 2, whose
    // scores depend on the earlier steps' weights.
    const bool stepwise = stateful(name);
    const int64_t q2_step = stepwise ? 1 : 0;
    auto loss = [&] {
      f.attention->weights_changed();
      f.attention->prepare(keys, kLengths, false);
      if (f.attention->context_size() == 0) return 0.0;
      Tensor c1, c2;
      f.attention->forward(q1, 0, c1, nullptr, nullptr);
      forward_rows(*f.attention, stepwise, q2, q2_step, c2, nullptr, nullptr);
      return p1(c1) + p2(c2) + f.attention->auxiliary_loss();
    };
    f.store.zero_grad();
    f.attention->prepare(keys, kLengths, true);
    AttentionTape t1;
    std::vector<AttentionTape> t2;
    Tensor c1, c2, dq1, dq2;
    f.attention->forward(q1, 0, c1, nullptr, &t1);
    forward_rows(*f.attention, stepwise, q2, q2_step, c2, nullptr, &t2);
    Tensor d_keys(keys.shape());
    if (f.attention->context_size() > 0) {
      backward_rows(*f.attention, t2, p2.grad(), dq2);
      f.attention->backward(t1, p1.grad(), dq1);
    } else {
      Tensor none(Shape{2, kN, 1});
      backward_rows(*f.attention, t2, none, dq2);
      f.attention->backward(t1, none, dq1);
    }
    f.attention->finish_backward(d_keys);
    const auto result = check_gradients(
        loss,
        {heed::test::grad_param("keys", keys, d_keys), heed::test::grad_param("q1", q1, dq1),
         heed::test::grad_param("q2", q2, dq2)},
        f.store);
    INFO(tested.label() << " " << heed::attention::to_string(normalizer) << "\n" << result.report);
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
  for (const TestedAttention& tested : heed::test::tested_attentions()) {
    const std::string& name = tested.name;
    if (name == "none") continue;
    Fixture f(tested, 6);
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
    // Sentences 0 and 2 are all padding on the target side: a mechanism's own loss term
    // (coverage) leaves them out too.
    f.attention->set_target_lengths({0, 2, 0});
    std::vector<AttentionTape> tape;
    Tensor context, weights, d_query, d_keys(keys.shape());
    forward_rows(*f.attention, stateful(name), query, 0, context, &weights, &tape);
    backward_rows(*f.attention, tape, d_context, d_query);
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
    std::vector<AttentionTape> alone_tape;
    Tensor c1, w1, dq1, dk1(alone_keys.shape());
    forward_rows(*f.attention, stateful(name), alone_query, 0, c1, &w1, &alone_tape);
    backward_rows(*f.attention, alone_tape, alone_dc, dq1);
    f.attention->finish_backward(dk1);
    INFO(tested.label());
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
  for (const TestedAttention& tested : heed::test::tested_attentions()) {
    const std::string& name = tested.name;
    if (name == "none") continue;
    Fixture f(tested, 8);
    heed::Rng d_rng = heed::make_rng(77);
    const Tensor d_context =
        heed::test::random_tensor(Shape{3, kN, f.attention->context_size()}, d_rng);
    f.store.zero_grad();
    f.attention->prepare(keys, kLengths, true);
    // A stateful mechanism steps here too (one step per call): then this checks that prepare()
    // starts its state afresh.
    std::vector<AttentionTape> tape;
    Tensor all, d_query_all, d_keys_all(keys.shape());
    forward_rows(*f.attention, stateful(name), query, 0, all, nullptr, &tape);
    backward_rows(*f.attention, tape, d_context, d_query_all);
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
    INFO(tested.label());
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
  // repeating, shrinking; then as a beam search selects: a beam of 2 per sentence, reordered
  // within each sentence (the key side does not move), a sentence finished (it moves forward
  // in its own buffer), reordered again, one sentence left.
  const std::vector<std::vector<int64_t>> steps = {
      {2, 0, 0}, {2, 0, 0, 1}, {1, 3, 0}, {2}, {0, 0, 0}};
  const std::vector<std::vector<int64_t>> beam_steps = {
      {0, 0, 1, 1, 2, 2}, {1, 0, 3, 2, 5, 4}, {0, 1, 4, 5}, {1, 0, 3, 2}, {2, 3}};
  const Tensor keys_before = keys.clone();
  for (const TestedAttention& tested : heed::test::tested_attentions()) {
    const std::string& name = tested.name;
    if (name == "none" || stateful(name)) continue;  // stateful: their own tests, with history
    Fixture f(tested, 10);
    std::vector<int64_t> original = {0, 1, 2};  // original row of each current row
    for (int repeat = 0; repeat < 4; ++repeat) {
      f.attention->prepare(keys, kLengths, false);
      original = {0, 1, 2};
      for (const std::vector<int64_t>& rows : repeat % 2 == 0 ? steps : beam_steps) {
        f.attention->select(rows);
        std::vector<int64_t> next;
        for (int64_t r : rows) next.push_back(original[size_t(r)]);
        original = next;
        const int64_t m = int64_t(original.size());
        const Tensor query = heed::test::random_tensor(Shape{1, m, kQ}, rng);
        Tensor selected, w_selected;
        f.attention->forward(query, 0, selected, &w_selected, nullptr);

        // The same rows built directly, by a fresh mechanism with the same parameters.
        Fixture g(tested, 10);
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
        INFO(tested.label() << " after " << rows.size() << " rows, repeat " << repeat);
        CHECK(heed::tensor::max_abs_diff(selected, direct) < 1e-6);
        CHECK(heed::tensor::max_abs_diff(w_selected, w_direct) < 1e-6);
      }
    }
    CHECK(heed::tensor::max_abs_diff(keys, keys_before) == 0);  // the caller's keys untouched
  }
}

TEST_CASE("attention: a beam's hypotheses share their sentence's key side", "[attention][fast]") {
  using heed::attention::KeySelection;
  using heed::attention::KeySideRows;
  using Rows = std::vector<int64_t>;
  KeySideRows shared;
  shared.reset(3);
  // The beam starts (each sentence's row becomes 2): the key side stays where it is, one slot a
  // sentence, which its hypotheses read.
  const KeySelection& start = shared.select({0, 0, 1, 1, 2, 2}, /*owned=*/false, /*shared=*/true);
  CHECK_FALSE(start.moved);
  CHECK(shared.row_slots() == Rows{0, 0, 1, 1, 2, 2});
  CHECK(shared.row_places() == Rows{0, 1, 0, 1, 0, 1});
  CHECK(shared.largest_group() == 2);
  // Reordered within each sentence: nothing moves.
  CHECK_FALSE(shared.select({1, 0, 3, 2, 5, 4}, false, true).moved);
  // Sentence 1 finishes: its slot goes, sentence 2's moves forward (in place when owned).
  const KeySelection& finished = shared.select({0, 1, 4, 5}, /*owned=*/true, true);
  CHECK(finished.moved);
  CHECK(finished.in_place);
  CHECK(finished.rows == Rows{0, 2});
  CHECK(shared.row_slots() == Rows{0, 0, 1, 1});
  // Rows of one origin apart from each other: a slot for each run.
  const KeySelection& apart = shared.select({0, 2, 1}, false, true);
  CHECK(apart.moved);
  CHECK(apart.rows == Rows{0, 1, 0});
  CHECK(shared.row_slots() == Rows{0, 1, 2});

  // Not shared: a slot for each row, the beam's start copies the key side.
  KeySideRows per_row;
  per_row.reset(3);
  const KeySelection& copied = per_row.select({0, 0, 1, 1, 2, 2}, false, /*shared=*/false);
  CHECK(copied.moved);
  CHECK(copied.rows == Rows{0, 0, 1, 1, 2, 2});
  CHECK(per_row.largest_group() == 1);
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
  for (const TestedAttention& tested : heed::test::tested_attentions()) {
    const std::string& name = tested.name;
    if (name == "none") continue;
    heed::Rng d_rng = heed::make_rng(13);
    const Tensor d_context = heed::test::random_tensor(
        Shape{2, kN, heed::attention::context_size(name, tested_config(tested))}, d_rng);
    Tensor contexts[2], d_queries[2], d_keys[2];
    for (int i = 0; i < 2; ++i) {
      AttentionConfig c = tested_config(tested);
      c.precision = i == 0 ? heed::onednn::Precision::kF32 : heed::onednn::Precision::kBF16;
      ParameterStore store;
      auto attention = heed::attention::make_attention(name, c, store, "decoder/attention/");
      heed::Rng prng = heed::make_rng(12);
      for (auto* p : store.all()) heed::test::fill_uniform(p->value, prng, -0.5f, 0.5f);
      attention->weights_changed();
      attention->prepare(keys, kLengths, true);
      std::vector<AttentionTape> tape;
      forward_rows(*attention, stateful(name), query, 0, contexts[i], nullptr, &tape);
      backward_rows(*attention, tape, d_context, d_queries[i]);
      d_keys[i].resize(keys.shape());
      d_keys[i].zero();
      attention->finish_backward(d_keys[i]);
    }
    INFO(tested.label());
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
    std::string valid;
    for (const std::string& n : names) valid += (valid.empty() ? "" : ", ") + n;
    CHECK(std::string(e.what()) == "unknown attention 'nope' (valid: " + valid + ")");
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

TEST_CASE("attention location: a source longer than --max-positions is refused, naming both",
          "[attention][fast]") {
  AttentionConfig c = config();
  c.options = {{"max-positions", 4}};
  ParameterStore store;
  auto attention = heed::attention::make_attention("location", c, store, "decoder/attention/");
  CHECK(store.get("decoder/attention/weight").value.shape() == Shape{4, kQ});
  heed::Rng rng = heed::make_rng(20);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  try {
    attention->prepare(keys, kLengths, false);  // the longest sentence has 5 tokens
    FAIL("no error");
  } catch (const heed::DataError& e) {
    CHECK(std::string(e.what()) ==
          "a source sentence of 5 tokens is longer than attention 'location' can score "
          "(--max-positions 4)");
  }
  // Up to the limit it scores, also when the padded batch is wider than the limit.
  attention->prepare(keys, {4, 2, 3}, false);
  Tensor context, weights;
  attention->forward(heed::test::random_tensor(Shape{1, kN, kQ}, rng), 0, context, &weights,
                     nullptr);
  for (int64_t b = 0; b < kN; ++b) CHECK(weights.data()[b * kS + 4] == 0.f);
  c.options = {{"max-positions", 0}};
  CHECK_THROWS_AS(heed::attention::make_attention("location", c, store, "y/"), heed::ConfigError);
}

TEST_CASE("attention location: rows of W_a past the batch's sentences get no gradient",
          "[attention][fast]") {
  Fixture f("location", 21);
  heed::Rng rng = heed::make_rng(22);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  f.store.zero_grad();
  f.attention->prepare(keys, kLengths, true);
  AttentionTape tape;
  Tensor context, d_query, d_keys(keys.shape());
  f.attention->forward(heed::test::random_tensor(Shape{2, kN, kQ}, rng), 0, context, nullptr,
                       &tape);
  f.attention->backward(tape, heed::test::random_tensor(Shape{2, kN, kK}, rng), d_query);
  f.attention->finish_backward(d_keys);
  const Tensor& grad = f.store.get("decoder/attention/weight").grad;
  REQUIRE(grad.shape() == Shape{100, kQ});
  double inside = 0, outside = 0;
  for (int64_t i = 0; i < grad.numel(); ++i) {
    (i < kS * kQ ? inside : outside) += std::fabs(double(grad.data()[i]));
  }
  CHECK(inside > 0);
  CHECK(outside == 0);
}

TEST_CASE("attention cosine: scores ignore vector lengths, a zero query gives uniform weights",
          "[attention][fast]") {
  Fixture f("cosine", 23);
  heed::Rng rng = heed::make_rng(24);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  Tensor query = heed::test::random_tensor(Shape{1, kN, kQ}, rng);
  Tensor scaled = query.clone();
  for (int64_t i = 0; i < scaled.numel(); ++i) scaled.data()[i] *= 7.f;
  f.attention->prepare(keys, kLengths, true);
  Tensor c1, c2, w1, w2, d_query;
  f.attention->forward(query, 0, c1, &w1, nullptr);
  f.attention->forward(scaled, 0, c2, &w2, nullptr);
  CHECK(heed::tensor::max_abs_diff(w1, w2) < 1e-6);
  // Zero query (ε keeps it finite): every score 0, weights 1/length; gradients finite.
  query.zero();
  AttentionTape tape;
  f.attention->forward(query, 0, c1, &w1, &tape);
  for (int64_t b = 0; b < kN; ++b) {
    for (int64_t i = 0; i < kLengths[size_t(b)]; ++i) {
      CHECK(w1.data()[b * kS + i] == Approx(1.0 / double(kLengths[size_t(b)])));
    }
  }
  f.attention->backward(tape, heed::test::random_tensor(Shape{1, kN, kK}, rng), d_query);
  for (float g : d_query.to_vector()) CHECK(std::isfinite(g));
}

TEST_CASE("attention scaled-general and normed-additive: the scale's roles", "[attention][fast]") {
  heed::Rng rng = heed::make_rng(25);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  const Tensor query = heed::test::random_tensor(Shape{2, kN, kQ}, rng);
  // scaled-general with g = 1 is general.
  Fixture general("general", 26), scaled("scaled-general", 26);
  REQUIRE(scaled.store.size() == 2);
  CHECK(scaled.store.get("decoder/attention/scale").value.shape() == Shape{1});
  CHECK(scaled.store.get("decoder/attention/scale").initial_value == 1.f);
  const Tensor& general_w = general.store.get("decoder/attention/weight").value;
  std::copy(general_w.data(), general_w.data() + general_w.numel(),
            scaled.store.get("decoder/attention/weight").value.data());
  scaled.store.get("decoder/attention/scale").value.fill(1.f);
  scaled.attention->weights_changed();
  Tensor c1, c2, w1, w2;
  general.attention->prepare(keys, kLengths, false);
  general.attention->forward(query, 0, c1, &w1, nullptr);
  scaled.attention->prepare(keys, kLengths, false);
  scaled.attention->forward(query, 0, c2, &w2, nullptr);
  CHECK(heed::tensor::max_abs_diff(w1, w2) < 1e-6);
  // normed-additive: v's length does not matter, only its direction and g; g starts at
  // sqrt(1/A) and the bias at 0.
  Fixture normed("normed-additive", 27);
  CHECK(normed.store.get("decoder/attention/scale").initial_value ==
        Approx(std::sqrt(1.0 / double(kA))));
  CHECK(normed.store.get("decoder/attention/bias").initial_value == 0.f);
  CHECK_FALSE(normed.store.get("decoder/attention/v").initial_value.has_value());
  normed.attention->prepare(keys, kLengths, false);
  normed.attention->forward(query, 0, c1, &w1, nullptr);
  Tensor& v = normed.store.get("decoder/attention/v").value;
  for (int64_t k = 0; k < kA; ++k) v.data()[k] *= 3.f;
  normed.attention->weights_changed();
  normed.attention->prepare(keys, kLengths, false);
  normed.attention->forward(query, 0, c2, &w2, nullptr);
  CHECK(heed::tensor::max_abs_diff(w1, w2) < 1e-6);
  // additive keeps its own start (uniform) for every parameter.
  Fixture additive("additive", 28);
  for (auto* p : additive.store.all()) CHECK_FALSE(p->initial_value.has_value());
}

namespace {

// Weights [S] of one row in double from a mechanism's reference scores (softmax over len).
std::vector<double> reference_row(const std::string& name, const Fixture& f, const Tensor& keys,
                                  int64_t b, int64_t len, const float* q,
                                  const std::vector<double>& coverage) {
  const int64_t n = keys.dim(1);
  std::vector<double> a(size_t(keys.dim(0)), 0.0);
  double mx = -1e300, z = 0;
  for (int64_t i = 0; i < len; ++i) {
    a[size_t(i)] =
        reference_score(name, f, q, keys.data() + (i * n + b) * kK, i, coverage[size_t(i)]);
    mx = std::max(mx, a[size_t(i)]);
  }
  for (int64_t i = 0; i < len; ++i) z += (a[size_t(i)] = std::exp(a[size_t(i)] - mx));
  for (int64_t i = 0; i < len; ++i) a[size_t(i)] /= z;
  return a;
}

}  // namespace

TEST_CASE(
    "coverage: the state after k steps is the sum of their weights; the loss counts real "
    "target steps",
    "[attention][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(21);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  const double w = 2.5;
  Fixture f("coverage", 22, heed::attention::Normalizer::kSoftmax, {{"coverage-loss", w}});
  const std::vector<int64_t> target_lengths = {4, 2, 3};
  f.attention->prepare(keys, kLengths, false);
  f.attention->set_target_lengths(target_lengths);
  std::vector<std::vector<double>> coverage(size_t(kN), std::vector<double>(size_t(kS), 0.0));
  double expected_loss = 0;
  for (int64_t step = 0; step < 5; ++step) {
    const Tensor query = heed::test::random_tensor(Shape{1, kN, kQ}, rng);
    Tensor context, weights;
    f.attention->forward(query, step, context, &weights, nullptr);
    for (int64_t b = 0; b < kN; ++b) {
      // Scored with cov = the sum of the weights the earlier steps returned.
      const std::vector<double> ref = reference_row("coverage", f, keys, b, kLengths[size_t(b)],
                                                    query.data() + b * kQ, coverage[size_t(b)]);
      INFO("step " << step << " sentence " << b);
      for (int64_t i = 0; i < kS; ++i) {
        const float a = weights.data()[b * kS + i];
        CHECK(std::fabs(double(a) - ref[size_t(i)]) < 1e-5);
        if (step < target_lengths[size_t(b)]) {
          expected_loss += w * std::min(double(a), coverage[size_t(b)][size_t(i)]);
        }
        coverage[size_t(b)][size_t(i)] += double(a);
      }
    }
    CHECK(f.attention->auxiliary_loss() == Approx(expected_loss).epsilon(1e-5));
  }
  CHECK(expected_loss > 0);
  // prepare() starts afresh: state and loss.
  f.attention->prepare(keys, kLengths, false);
  CHECK(f.attention->auxiliary_loss() == 0);
  Tensor context;
  const Tensor query = heed::test::random_tensor(Shape{1, kN, kQ}, rng);
  CHECK_NOTHROW(f.attention->forward(query, 0, context, nullptr, nullptr));
  // One step at a time, in order.
  CHECK_THROWS_AS(f.attention->forward(query, 2, context, nullptr, nullptr), heed::InternalError);
}

TEST_CASE("coverage: beam select() carries the coverage with the rows", "[attention][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(23);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  Fixture f("coverage", 24);
  f.attention->prepare(keys, kLengths, false);
  // history[k]: the queries of step k; ancestor[k][r]: the row of step k that current row r
  // descends from.
  std::vector<Tensor> history;
  std::vector<std::vector<int64_t>> ancestor;
  std::vector<int64_t> original = {0, 1, 2};
  const std::vector<std::vector<int64_t>> selects = {{}, {2, 0, 0}, {2, 0, 0, 1}, {1, 3, 0}, {2}};
  for (size_t step = 0; step < selects.size(); ++step) {
    const std::vector<int64_t>& rows = selects[step];
    if (!rows.empty()) {
      f.attention->select(rows);
      std::vector<int64_t> next;
      for (int64_t r : rows) next.push_back(original[size_t(r)]);
      original = next;
      for (auto& a : ancestor) {
        std::vector<int64_t> moved;
        for (int64_t r : rows) moved.push_back(a[size_t(r)]);
        a = moved;
      }
    }
    const int64_t m = int64_t(original.size());
    std::vector<int64_t> identity;
    for (int64_t r = 0; r < m; ++r) identity.push_back(r);
    ancestor.push_back(identity);
    history.push_back(heed::test::random_tensor(Shape{1, m, kQ}, rng));
    Tensor selected, w_selected;
    f.attention->forward(history.back(), int64_t(step), selected, &w_selected, nullptr);

    // A fresh mechanism on the gathered sentences, fed each row's own history of queries.
    Fixture g("coverage", 24);
    Tensor gathered(Shape{kS, m, kK});
    std::vector<int64_t> lengths;
    for (int64_t r = 0; r < m; ++r) {
      const int64_t o = original[size_t(r)];
      lengths.push_back(kLengths[size_t(o)]);
      for (int64_t i = 0; i < kS; ++i) {
        std::copy(keys.data() + (i * kN + o) * kK, keys.data() + (i * kN + o + 1) * kK,
                  gathered.data() + (i * m + r) * kK);
      }
    }
    g.attention->prepare(gathered, lengths, false);
    Tensor direct, w_direct;
    for (size_t k = 0; k <= step; ++k) {
      Tensor q(Shape{1, m, kQ});
      for (int64_t r = 0; r < m; ++r) {
        const float* src = history[k].data() + ancestor[k][size_t(r)] * kQ;
        std::copy(src, src + kQ, q.data() + r * kQ);
      }
      g.attention->forward(q, int64_t(k), direct, &w_direct, nullptr);
    }
    INFO("step " << step);
    CHECK(heed::tensor::max_abs_diff(selected, direct) < 1e-6);
    CHECK(heed::tensor::max_abs_diff(w_selected, w_direct) < 1e-6);
  }
}

TEST_CASE(
    "coverage: finite-difference gradients over steps, with padded target steps and a "
    "scaled loss term",
    "[attention][fast]") {
  heed::onednn::set_threads(1);
  for (const auto normalizer :
       {heed::attention::Normalizer::kSoftmax, heed::attention::Normalizer::kSparsemax}) {
    Fixture f("coverage", 25, normalizer, {{"coverage-loss", 2.5}});
    heed::Rng rng = heed::make_rng(26);
    Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
    Tensor query = heed::test::random_tensor(Shape{4, kN, kQ}, rng);
    const heed::test::Projection projection(Shape{4, kN, kK}, rng);
    const std::vector<int64_t> target_lengths = {4, 2, 3};
    const float scale = 0.5f;
    // Steps past a sentence's target length get no gradient from the projection either (as in
    // the model, where padded outputs have no loss).
    Tensor d_context = projection.grad().clone();
    for (int64_t t = 0; t < 4; ++t) {
      for (int64_t b = 0; b < kN; ++b) {
        if (t < target_lengths[size_t(b)]) continue;
        std::fill_n(d_context.data() + (t * kN + b) * kK, kK, 0.f);
      }
    }
    auto loss = [&] {
      f.attention->weights_changed();
      f.attention->prepare(keys, kLengths, false);
      f.attention->set_target_lengths(target_lengths);
      Tensor c;
      forward_rows(*f.attention, true, query, 0, c, nullptr, nullptr);
      double sum = 0;
      for (int64_t i = 0; i < c.numel(); ++i)
        sum += double(d_context.data()[i]) * double(c.data()[i]);
      return sum + double(scale) * f.attention->auxiliary_loss();
    };
    f.store.zero_grad();
    f.attention->prepare(keys, kLengths, true);
    f.attention->set_target_lengths(target_lengths);
    std::vector<AttentionTape> tapes;
    Tensor c, d_query, d_keys(keys.shape());
    forward_rows(*f.attention, true, query, 0, c, nullptr, &tapes);
    REQUIRE(f.attention->auxiliary_loss() > 0);
    f.attention->set_loss_scale(scale);
    backward_rows(*f.attention, tapes, d_context, d_query);
    f.attention->finish_backward(d_keys);
    const auto result = check_gradients(loss,
                                        {heed::test::grad_param("keys", keys, d_keys),
                                         heed::test::grad_param("query", query, d_query)},
                                        f.store);
    INFO(heed::attention::to_string(normalizer) << "\n" << result.report);
    CHECK(result.ok);
    CHECK(result.checked > 100);
    // The coverage weight learns through the state.
    const std::vector<float> g = f.store.get("decoder/attention/w_coverage").grad.to_vector();
    CHECK(std::any_of(g.begin(), g.end(), [](float x) { return x != 0.f; }));
  }
}

TEST_CASE("coverage: --coverage-loss is checked and applies to coverage only",
          "[attention][fast]") {
  ParameterStore store;
  AttentionConfig c = config();
  c.options = {{"coverage-loss", 101}};
  CHECK_THROWS_AS(heed::attention::make_attention("coverage", c, store, "x/"), heed::ConfigError);
  c.options = {{"coverage-loss", 0}};
  CHECK_THROWS_AS(heed::attention::make_attention("additive", c, store, "y/"), heed::ConfigError);
  const auto& info = heed::attention::attention_info("coverage");
  CHECK(info.traits.stateful);
  REQUIRE(info.options.size() == 1);
  CHECK(info.options[0].default_value == 0);  // coverage in the score only (docs/attention.md)
}

TEST_CASE("ff-pool: the same pooled context at every step, no query gradient, any normaliser",
          "[attention][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(27);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  const Tensor query = heed::test::random_tensor(Shape{3, kN, kQ}, rng);
  const Tensor d_context = heed::test::random_tensor(Shape{3, kN, kK}, rng);
  for (const auto normalizer :
       {heed::attention::Normalizer::kSoftmax, heed::attention::Normalizer::kSparsemax}) {
    Fixture f("ff-pool", 28, normalizer);
    CHECK_FALSE(heed::attention::attention_info("ff-pool").traits.uses_query);
    CHECK(f.store.get("decoder/attention/w").value.shape() == Shape{kK});
    CHECK(f.store.get("decoder/attention/b").value.shape() == Shape{1});
    // The pool itself, with the same parameters and normaliser.
    ParameterStore pool_store;
    heed::attention::FeedForwardPool pool(kK, pool_store, "decoder/attention/", normalizer);
    for (auto* p : pool_store.all()) {
      const auto v = f.store.get(p->name).value.to_vector();
      std::copy(v.begin(), v.end(), p->value.data());
    }
    Tensor pooled, pool_weights;
    pool.forward(keys, kLengths, pooled, &pool_weights);

    f.store.zero_grad();
    f.attention->prepare(keys, kLengths, true);
    AttentionTape tape;
    Tensor context, weights, d_query, d_keys(keys.shape());
    f.attention->forward(query, 0, context, &weights, &tape);
    INFO(heed::attention::to_string(normalizer));
    for (int64_t t = 0; t < 3; ++t) {
      for (int64_t b = 0; b < kN; ++b) {
        for (int64_t k = 0; k < kK; ++k) {
          CHECK(context.data()[(t * kN + b) * kK + k] == pooled.data()[b * kK + k]);
        }
        for (int64_t i = 0; i < kS; ++i) {
          CHECK(weights.data()[(b * 3 + t) * kS + i] == pool_weights.data()[b * kS + i]);
        }
      }
    }
    f.attention->backward(tape, d_context, d_query);
    f.attention->finish_backward(d_keys);
    for (float x : d_query.to_vector()) CHECK(x == 0.f);
    // The steps' context gradients, summed, through the pool once.
    Tensor d_pooled(Shape{kN, kK}), pool_d_keys(keys.shape());
    for (int64_t t = 0; t < 3; ++t) {
      for (int64_t i = 0; i < kN * kK; ++i) d_pooled.data()[i] += d_context.data()[t * kN * kK + i];
    }
    pool.backward(d_pooled, pool_d_keys);
    CHECK(heed::tensor::max_abs_diff(d_keys, pool_d_keys) < 1e-6);
  }
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

TEST_CASE(
    "attention scaled-dot --learn-temperature: starts as scaled-dot, τ = exp(log_temperature) "
    "multiplies the scores, and τ's own gradient",
    "[attention][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(31);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  Tensor query = heed::test::random_tensor(Shape{2, kN, kQ}, rng);
  Fixture plain("scaled-dot", 32);
  Fixture learned("scaled-dot", 32, heed::attention::Normalizer::kSoftmax,
                  {{"learn-temperature", 1}});
  CHECK(plain.store.size() == 0);
  REQUIRE(learned.store.size() == 1);
  heed::layers::Parameter& theta = learned.store.get("decoder/attention/log_temperature");
  CHECK(theta.value.shape() == Shape{1});
  CHECK(theta.initial_value == 0.f);  // τ = 1: the model starts as the plain one
  const auto weights = [&](Fixture& f, const Tensor& q) {
    Tensor context, w;
    f.attention->prepare(keys, kLengths, false);
    f.attention->forward(q, 0, context, &w, nullptr);
    return w;
  };
  theta.value.fill(0.f);
  CHECK(heed::tensor::max_abs_diff(weights(learned, query), weights(plain, query)) < 1e-6);
  // τ = 2.5: the scores of a query 2.5 times as long.
  theta.value.fill(float(std::log(2.5)));
  Tensor longer = query.clone();
  for (int64_t i = 0; i < longer.numel(); ++i) longer.data()[i] *= 2.5f;
  CHECK(heed::tensor::max_abs_diff(weights(learned, query), weights(plain, longer)) < 1e-6);
  // θ's gradient alone, by central differences at θ = log 2.5 (no kink skipping: one coordinate
  // that must be checked).
  const heed::test::Projection projection(Shape{2, kN, kK}, rng);
  auto loss = [&] {
    Tensor context;
    learned.attention->prepare(keys, kLengths, false);
    learned.attention->forward(query, 0, context, nullptr, nullptr);
    return projection(context);
  };
  learned.store.zero_grad();
  learned.attention->prepare(keys, kLengths, true);
  AttentionTape tape;
  Tensor context, d_query, d_keys(keys.shape());
  learned.attention->forward(query, 0, context, nullptr, &tape);
  learned.attention->backward(tape, projection.grad(), d_query);
  learned.attention->finish_backward(d_keys);
  CHECK(theta.grad.data()[0] != 0.f);
  heed::test::GradCheckOptions options;
  options.skip_kinks = false;
  const auto result = heed::test::gradcheck(
      loss, {heed::test::grad_param("theta", theta.value, theta.grad)}, options);
  INFO(result.report);
  CHECK(result.ok);
  CHECK(result.checked == 1);
  // The option: 0 or 1, for scaled-dot only.
  AttentionConfig c = config();
  ParameterStore store;
  c.options = {{"learn-temperature", 2}};
  CHECK_THROWS_WITH(heed::attention::make_attention("scaled-dot", c, store, "x/"),
                    "--learn-temperature must be an integer in [0, 1], not 2");
  c.options = {{"learn-temperature", 1}};
  CHECK_THROWS_WITH(heed::attention::make_attention("dot", c, store, "y/"),
                    Catch::Contains("--learn-temperature does not apply to attention 'dot'"));
}

TEST_CASE("attention multi-head --scale-scores 0: the heads' scores without the 1/√d",
          "[attention][fast]") {
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(33);
  const Tensor keys = heed::test::random_tensor(Shape{kS, kN, kK}, rng);
  const Tensor query = heed::test::random_tensor(Shape{2, kN, kQ}, rng);
  Fixture scaled("multi-head", 34);
  Fixture unscaled("multi-head", 34, heed::attention::Normalizer::kSoftmax, {{"scale-scores", 0}});
  CHECK(scaled.options.at("scale-scores") == 1);  // the default: Vaswani's scaling
  CHECK(unscaled.store.size() == 4);              // the same parameters
  // q' = W_q q is linear in q: unscaled scores of q are the scaled scores of √d·q (d = A/H = 2),
  // and the values do not depend on the query, so weights and contexts agree.
  Tensor longer = query.clone();
  for (int64_t i = 0; i < longer.numel(); ++i) longer.data()[i] *= std::sqrt(2.f);
  Tensor c1, w1, c2, w2;
  unscaled.attention->prepare(keys, kLengths, false);
  unscaled.attention->forward(query, 0, c1, &w1, nullptr);
  scaled.attention->prepare(keys, kLengths, false);
  scaled.attention->forward(longer, 0, c2, &w2, nullptr);
  CHECK(heed::tensor::max_abs_diff(w1, w2) < 1e-5);
  CHECK(heed::tensor::max_abs_diff(c1, c2) < 1e-5);
  scaled.attention->forward(query, 0, c2, &w2, nullptr);
  CHECK(heed::tensor::max_abs_diff(w1, w2) > 1e-3);  // and it does change them
  const auto declared = heed::attention::declared_options();
  const auto option = std::find_if(declared.begin(), declared.end(),
                                   [](const auto& d) { return d.spec.name == "scale-scores"; });
  REQUIRE(option != declared.end());
  CHECK(option->mechanisms == std::vector<std::string>{"multi-head"});
  AttentionConfig c = config("multi-head");
  c.options["scale-scores"] = 0.5;
  ParameterStore store;
  CHECK_THROWS_AS(heed::attention::make_attention("multi-head", c, store, "x/"), heed::ConfigError);
}

TEST_CASE("attention general --identity-init: a square W_a marked to start as the identity",
          "[attention][fast]") {
  Fixture drawn("general", 35),
      identity("general", 35, heed::attention::Normalizer::kSoftmax, {{"identity-init", 1}});
  CHECK_FALSE(drawn.store.get("decoder/attention/weight").initial_identity);
  CHECK(identity.store.get("decoder/attention/weight").initial_identity);
  CHECK(identity.store.size() == 1);
  AttentionConfig c = config();
  c.query_size = kK + 2;
  c.options = {{"identity-init", 1}};
  ParameterStore store;
  CHECK_THROWS_WITH(heed::attention::make_attention("general", c, store, "x/"),
                    "attention 'general': --identity-init 1 needs a square W_a, the decoder "
                    "state size (8) equal to the encoder output size (6)");
  c.options = {{"identity-init", 0}};
  CHECK_NOTHROW(heed::attention::make_attention("general", c, store, "y/"));
  c = config();
  c.options = {{"identity-init", 1}};
  CHECK_THROWS_AS(heed::attention::make_attention("scaled-general", c, store, "z/"),
                  heed::ConfigError);
}
