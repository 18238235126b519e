#include "heed/onednn/rnn.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "heed/common/error.h"
#include "heed/common/rng.h"
#include "heed/onednn/context.h"
#include "heed/tensor/tensor_ops.h"
#include "support/gradcheck.h"
#include "support/reference_rnn.h"
#include "support/reference_util.h"

using heed::onednn::CellKind;
using heed::onednn::Precision;
using heed::onednn::Rnn;
using heed::onednn::RnnConfig;
using heed::onednn::RnnTape;
using heed::tensor::Shape;
using heed::tensor::Tensor;
using heed::test::relative_error;
using heed::test::to_double;

namespace {

constexpr double kTol = 1e-5;

struct Params {
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
  Tensor g_weight_ih, g_weight_hh, g_bias_ih, g_bias_hh;

  Params(CellKind cell, int64_t in, int64_t h, heed::Rng& rng) {
    const int64_t gh = heed::onednn::gate_count(cell) * h;
    weight_ih = heed::test::random_tensor(Shape{gh, in}, rng, -0.5f, 0.5f);
    weight_hh = heed::test::random_tensor(Shape{gh, h}, rng, -0.5f, 0.5f);
    bias_ih = heed::test::random_tensor(Shape{gh}, rng, -0.5f, 0.5f);
    bias_hh = heed::test::random_tensor(Shape{gh}, rng, -0.5f, 0.5f);
    g_weight_ih = Tensor(weight_ih.shape());
    g_weight_hh = Tensor(weight_hh.shape());
    g_bias_ih = Tensor(bias_ih.shape());
    g_bias_hh = Tensor(bias_hh.shape());
  }
  heed::onednn::RnnWeights weights() const { return {&weight_ih, &weight_hh, &bias_ih, &bias_hh}; }
  heed::onednn::RnnGrads grads() { return {&g_weight_ih, &g_weight_hh, &g_bias_ih, &g_bias_hh}; }
  void zero_grads() {
    for (Tensor* t : {&g_weight_ih, &g_weight_hh, &g_bias_ih, &g_bias_hh}) t->zero();
  }
  heed::test::ReferenceRnn reference(bool lstm) const {
    heed::test::ReferenceRnn r;
    r.lstm = lstm;
    r.input = weight_ih.dim(1);
    r.hidden = weight_hh.dim(1);
    r.weight_ih = to_double(weight_ih);
    r.weight_hh = to_double(weight_hh);
    r.bias_ih = to_double(bias_ih);
    r.bias_hh = to_double(bias_hh);
    return r;
  }
};

struct Case {
  CellKind cell;
  int64_t steps, batch, in, hidden;
};

std::string name(const Case& c) {
  return std::string(heed::onednn::cell_name(c.cell)) + " T=" + std::to_string(c.steps) +
         " N=" + std::to_string(c.batch) + " I=" + std::to_string(c.in) +
         " H=" + std::to_string(c.hidden);
}

}  // namespace

TEST_CASE("rnn: forward and backward match the PyTorch-equation reference", "[onednn][fast]") {
  heed::onednn::set_threads(1);
  const std::vector<Case> cases = {{CellKind::kLstm, 1, 3, 5, 4}, {CellKind::kLstm, 4, 3, 5, 4},
                                   {CellKind::kLstm, 3, 2, 3, 6}, {CellKind::kGru, 1, 3, 5, 4},
                                   {CellKind::kGru, 4, 3, 5, 4},  {CellKind::kGru, 3, 2, 3, 6}};
  for (const Case& c : cases) {
    SECTION(name(c)) {
      const bool lstm = c.cell == CellKind::kLstm;
      heed::Rng rng = heed::make_rng(31);
      Params p(c.cell, c.in, c.hidden, rng);
      const Shape state{c.batch, c.hidden};
      Tensor x = heed::test::random_tensor(Shape{c.steps, c.batch, c.in}, rng);
      Tensor h0 = heed::test::random_tensor(state, rng);
      Tensor c0 = heed::test::random_tensor(state, rng);
      Tensor dy = heed::test::random_tensor(Shape{c.steps, c.batch, c.hidden}, rng);
      Tensor dh = heed::test::random_tensor(state, rng);
      Tensor dc = heed::test::random_tensor(state, rng);

      Rnn rnn(RnnConfig{c.cell, c.in, c.hidden, Precision::kF32});
      rnn.set_weights(p.weights());
      Tensor y(Shape{c.steps, c.batch, c.hidden}), h_last(state), c_last(state);
      RnnTape tape;
      rnn.forward_training({&x, &h0, lstm ? &c0 : nullptr}, {&y, &h_last, lstm ? &c_last : nullptr},
                           tape);
      CHECK(tape.pending());
      Tensor dx(x.shape()), dh0(state), dc0(state);
      rnn.backward(tape, {&dy, &dh, lstm ? &dc : nullptr}, {&dx, &dh0, lstm ? &dc0 : nullptr});
      CHECK_FALSE(tape.pending());
      rnn.flush_grads(p.grads());

      const heed::test::ReferenceRnn ref = p.reference(lstm);
      const auto f =
          heed::test::reference_forward(ref, to_double(x), c.steps, c.batch, to_double(h0),
                                        lstm ? to_double(c0) : std::vector<double>{});
      const auto g =
          heed::test::reference_backward(ref, f, to_double(x), to_double(dy), to_double(dh),
                                         lstm ? to_double(dc) : std::vector<double>{});
      CHECK(relative_error(f.y, y) < kTol);
      CHECK(relative_error(f.h_last, h_last) < kTol);
      CHECK(relative_error(g.dx, dx) < kTol);
      CHECK(relative_error(g.dh0, dh0) < kTol);
      CHECK(relative_error(g.dweight_ih, p.g_weight_ih) < kTol);
      CHECK(relative_error(g.dweight_hh, p.g_weight_hh) < kTol);
      CHECK(relative_error(g.dbias_ih, p.g_bias_ih) < kTol);
      CHECK(relative_error(g.dbias_hh, p.g_bias_hh) < kTol);
      if (lstm) {
        CHECK(relative_error(f.c_last, c_last) < kTol);
        CHECK(relative_error(g.dc0, dc0) < kTol);
      }
      // Inference gives the same outputs.
      Tensor yi(y.shape()), hi(state);
      rnn.forward_inference({&x, &h0, lstm ? &c0 : nullptr}, {&yi, &hi, nullptr});
      CHECK(relative_error(f.y, yi) < kTol);
      CHECK(relative_error(f.h_last, hi) < kTol);
    }
  }
}

TEST_CASE("rnn: null states mean zeros and gradients accumulate until flushed", "[onednn][fast]") {
  // T = 1 trains an LSTM on heed's own step (lstm_step.h), T = 3 on oneDNN's primitive.
  const int64_t T = GENERATE(3, 1);
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(32);
  const int64_t N = 2, I = 4, H = 5;
  Params p(CellKind::kLstm, I, H, rng);
  Tensor x = heed::test::random_tensor(Shape{T, N, I}, rng);
  Tensor dy = heed::test::random_tensor(Shape{T, N, H}, rng);
  Rnn rnn(RnnConfig{CellKind::kLstm, I, H, Precision::kF32});
  rnn.set_weights(p.weights());
  Tensor y(Shape{T, N, H});
  RnnTape tape;
  for (int i = 0; i < 2; ++i) {
    rnn.forward_training({&x}, {&y}, tape);
    rnn.backward(tape, {&dy}, {});
  }
  rnn.flush_grads(p.grads());
  const auto ref = p.reference(true);
  const auto f = heed::test::reference_forward(ref, to_double(x), T, N, {}, {});
  const auto g = heed::test::reference_backward(ref, f, to_double(x), to_double(dy), {}, {});
  CHECK(relative_error(f.y, y) < kTol);
  std::vector<double> twice(g.dweight_hh);
  for (double& v : twice) v *= 2;
  CHECK(relative_error(twice, p.g_weight_hh) < kTol);
  // Flushing cleared the accumulators.
  p.zero_grads();
  rnn.flush_grads(p.grads());
  CHECK(heed::tensor::max_abs_diff(p.g_weight_ih, Tensor(p.g_weight_ih.shape())) == 0);
  CHECK(heed::tensor::max_abs_diff(p.g_weight_hh, Tensor(p.g_weight_hh.shape())) == 0);
  // Misuse.
  CHECK_THROWS_AS(rnn.backward(tape, {&dy}, {}), heed::InternalError);
  Tensor bad(Shape{T, N, I + 1});
  CHECK_THROWS_AS(rnn.forward_inference({&bad}, {&y}), heed::InternalError);
  CHECK_THROWS_AS(Rnn(RnnConfig{CellKind::kGru, 0, 4, Precision::kF32}), heed::ConfigError);
}

TEST_CASE("rnn: T single steps equal one T-step call, forward and backward", "[onednn][fast]") {
  // An LSTM steps on heed's own step (lstm_step.h) or on oneDNN's primitive; the T-step call
  // runs on oneDNN's either way.
  const bool own_lstm_step = GENERATE(true, false);
  heed::onednn::set_threads(1);
  for (CellKind cell : {CellKind::kLstm, CellKind::kGru}) {
    SECTION(heed::onednn::cell_name(cell)) {
      const bool lstm = cell == CellKind::kLstm;
      heed::Rng rng = heed::make_rng(33);
      const int64_t T = 5, N = 3, I = 7, H = 4;
      const Shape state{N, H};
      Params full(cell, I, H, rng);
      Params stepped(cell, I, H, rng);
      for (auto [dst, src] : {std::pair{&stepped.weight_ih, &full.weight_ih},
                              std::pair{&stepped.weight_hh, &full.weight_hh},
                              std::pair{&stepped.bias_ih, &full.bias_ih},
                              std::pair{&stepped.bias_hh, &full.bias_hh}}) {
        heed::tensor::copy(*src, *dst);
      }
      Tensor x = heed::test::random_tensor(Shape{T, N, I}, rng);
      Tensor h0 = heed::test::random_tensor(state, rng);
      Tensor c0 = heed::test::random_tensor(state, rng);
      Tensor dy = heed::test::random_tensor(Shape{T, N, H}, rng);
      RnnConfig config{cell, I, H, Precision::kF32};
      config.own_lstm_step = own_lstm_step;

      // One call.
      Rnn a(config);
      a.set_weights(full.weights());
      Tensor y(Shape{T, N, H}), dx(x.shape()), dh0(state), dc0(state);
      RnnTape tape;
      a.forward_training({&x, &h0, lstm ? &c0 : nullptr}, {&y}, tape);
      a.backward(tape, {&dy}, {&dx, &dh0, lstm ? &dc0 : nullptr});
      a.flush_grads(full.grads());

      // T steps, as a decoder runs: one tape per step, states kept for backward.
      Rnn b(config);
      b.set_weights(stepped.weights());
      std::vector<RnnTape> tapes(T);
      Tensor ys(Shape{T, N, H}), cs(Shape{T, N, H}), dxs(x.shape());
      for (int64_t t = 0; t < T; ++t) {
        const Tensor xt = x.slice(t, t + 1);
        Tensor yt = ys.slice(t, t + 1);
        Tensor ct = cs.select(t);
        const Tensor hprev = t == 0 ? h0.view(state) : ys.select(t - 1);
        const Tensor cprev = t == 0 ? c0.view(state) : cs.select(t - 1);
        b.forward_training({&xt, &hprev, lstm ? &cprev : nullptr},
                           {&yt, nullptr, lstm ? &ct : nullptr}, tapes[static_cast<size_t>(t)]);
      }
      CHECK(relative_error(to_double(y), ys) < kTol);
      Tensor dh_next(state), dc_next(state), dh_prev(state), dc_prev(state);
      for (int64_t t = T - 1; t >= 0; --t) {
        const Tensor dyt = dy.slice(t, t + 1);
        Tensor dxt = dxs.slice(t, t + 1);
        b.backward(tapes[static_cast<size_t>(t)], {&dyt, &dh_next, lstm ? &dc_next : nullptr},
                   {&dxt, &dh_prev, lstm ? &dc_prev : nullptr});
        heed::tensor::copy(dh_prev, dh_next);
        if (lstm) heed::tensor::copy(dc_prev, dc_next);
      }
      b.flush_grads(stepped.grads());
      // A GRU (or an LSTM told so) steps on one T=1 training primitive, reused every step; an
      // LSTM on heed's own step, no primitive.
      CHECK(b.plan_count() == (lstm && own_lstm_step ? 0 : 1));
      CHECK(relative_error(to_double(dx), dxs) < kTol);
      CHECK(relative_error(to_double(dh0), dh_next) < kTol);
      if (lstm) CHECK(relative_error(to_double(dc0), dc_next) < kTol);
      CHECK(relative_error(to_double(full.g_weight_ih), stepped.g_weight_ih) < kTol);
      CHECK(relative_error(to_double(full.g_weight_hh), stepped.g_weight_hh) < kTol);
      CHECK(relative_error(to_double(full.g_bias_ih), stepped.g_bias_ih) < kTol);
      CHECK(relative_error(to_double(full.g_bias_hh), stepped.g_bias_hh) < kTol);
    }
  }
}

TEST_CASE("rnn: a decoder's ever new row counts keep a bounded number of packed weights",
          "[onednn][fast]") {
  // oneDNN's packed weight layout depends on the row count N, and a beam search steps with
  // ever fewer live rows: the copies are bounded, and one evicted is packed again exactly.
  heed::onednn::set_threads(1);
  heed::Rng rng = heed::make_rng(41);
  const int64_t in = 64, hidden = 256;
  Params p(CellKind::kLstm, in, hidden, rng);
  Rnn rnn(RnnConfig{CellKind::kLstm, in, hidden, Precision::kF32});
  rnn.set_weights(p.weights());
  auto step = [&](int64_t rows, heed::Rng& inputs) {
    Tensor x = heed::test::random_tensor(Shape{1, rows, in}, inputs);
    Tensor y(Shape{1, rows, hidden});
    rnn.forward_inference({&x}, {&y});
    return y;
  };
  heed::Rng first_inputs = heed::make_rng(7);
  const Tensor first = step(3, first_inputs);
  for (int64_t rows = 60; rows >= 1; --rows) {
    step(rows, rng);
    CHECK(rnn.packed_count() <= 8);
  }
  heed::Rng again_inputs = heed::make_rng(7);
  const Tensor again = step(3, again_inputs);
  CHECK(std::equal(first.data(), first.data() + first.numel(), again.data()));
}

TEST_CASE("rnn: gradients pass a finite-difference check", "[onednn][grad]") {
  // T = 1 trains an LSTM on heed's own step (lstm_step.h); the loss runs oneDNN's inference.
  const int64_t T = GENERATE(3, 1);
  heed::onednn::set_threads(1);
  for (CellKind cell : {CellKind::kLstm, CellKind::kGru}) {
    SECTION(heed::onednn::cell_name(cell)) {
      const bool lstm = cell == CellKind::kLstm;
      heed::Rng rng = heed::make_rng(34);
      const int64_t N = 2, I = 3, H = 4;
      const Shape state{N, H};
      Params p(cell, I, H, rng);
      Tensor x = heed::test::random_tensor(Shape{T, N, I}, rng);
      Tensor h0 = heed::test::random_tensor(state, rng);
      Tensor c0 = heed::test::random_tensor(state, rng);
      heed::test::Projection py(Shape{T, N, H}, rng), ph(state, rng), pc(state, rng);
      Rnn rnn(RnnConfig{cell, I, H, Precision::kF32});
      rnn.set_weights(p.weights());
      Tensor y(Shape{T, N, H}), hl(state), cl(state);
      const auto loss = [&] {
        rnn.weights_changed();
        rnn.forward_inference({&x, &h0, lstm ? &c0 : nullptr}, {&y, &hl, lstm ? &cl : nullptr});
        return py(y) + ph(hl) + (lstm ? pc(cl) : 0.0);
      };
      RnnTape tape;
      rnn.forward_training({&x, &h0, lstm ? &c0 : nullptr}, {&y, &hl, lstm ? &cl : nullptr}, tape);
      Tensor dx(x.shape()), dh0(state), dc0(state);
      rnn.backward(tape, {&py.grad(), &ph.grad(), lstm ? &pc.grad() : nullptr},
                   {&dx, &dh0, lstm ? &dc0 : nullptr});
      rnn.flush_grads(p.grads());
      std::vector<heed::test::GradParam> params = {
          heed::test::grad_param("weight_ih", p.weight_ih, p.g_weight_ih),
          heed::test::grad_param("weight_hh", p.weight_hh, p.g_weight_hh),
          heed::test::grad_param("bias_ih", p.bias_ih, p.g_bias_ih),
          heed::test::grad_param("bias_hh", p.bias_hh, p.g_bias_hh),
          heed::test::grad_param("x", x, dx),
          heed::test::grad_param("h0", h0, dh0)};
      if (lstm) params.push_back(heed::test::grad_param("c0", c0, dc0));
      const auto result = heed::test::gradcheck(loss, params);
      INFO(result.report);
      CHECK(result.ok);
      CHECK(result.checked > (T == 1 ? 60 : 80));
    }
  }
}

TEST_CASE("rnn: bf16 LSTM and GRU are close to f32", "[onednn][fast]") {
  if (!heed::onednn::bf16_supported()) {
    WARN("SKIPPED: bf16 not supported by oneDNN on this CPU");
    CHECK_THROWS_AS(Rnn(RnnConfig{CellKind::kLstm, 8, 8, Precision::kBF16}), heed::ConfigError);
    return;
  }
  // T = 1 trains an LSTM on heed's own step (lstm_step.h), T = 6 on oneDNN's primitive.
  const int64_t T = GENERATE(6, 1);
  heed::onednn::set_threads(1);
  for (CellKind cell : {CellKind::kLstm, CellKind::kGru}) {
    SECTION(heed::onednn::cell_name(cell)) {
      const bool lstm = cell == CellKind::kLstm;
      heed::Rng rng = heed::make_rng(35);
      const int64_t N = 4, I = 24, H = 16;
      const Shape state{N, H};
      Params p(cell, I, H, rng);
      Tensor x = heed::test::random_tensor(Shape{T, N, I}, rng);
      Tensor h0 = heed::test::random_tensor(state, rng);
      Tensor c0 = heed::test::random_tensor(state, rng);
      Tensor dy = heed::test::random_tensor(Shape{T, N, H}, rng);
      Tensor dh = heed::test::random_tensor(state, rng);
      const auto ref = p.reference(lstm);
      const auto f = heed::test::reference_forward(ref, to_double(x), T, N, to_double(h0),
                                                   lstm ? to_double(c0) : std::vector<double>{});
      const auto g =
          heed::test::reference_backward(ref, f, to_double(x), to_double(dy), to_double(dh), {});

      Rnn rnn(RnnConfig{cell, I, H, Precision::kBF16});
      rnn.set_weights(p.weights());
      Tensor y(Shape{T, N, H}), hl(state), cl(state), dx(x.shape()), dh0(state), dc0(state);
      RnnTape tape;
      rnn.forward_training({&x, &h0, lstm ? &c0 : nullptr}, {&y, &hl, lstm ? &cl : nullptr}, tape);
      rnn.backward(tape, {&dy, &dh, nullptr}, {&dx, &dh0, lstm ? &dc0 : nullptr});
      rnn.flush_grads(p.grads());
      CHECK(relative_error(f.y, y) < 3e-2);
      CHECK(relative_error(f.y, y) > 1e-7);  // really ran in bf16
      CHECK(relative_error(f.h_last, hl) < 3e-2);
      CHECK(relative_error(g.dx, dx) < 5e-2);
      CHECK(relative_error(g.dh0, dh0) < 5e-2);
      CHECK(relative_error(g.dweight_ih, p.g_weight_ih) < 5e-2);
      CHECK(relative_error(g.dweight_hh, p.g_weight_hh) < 5e-2);
      CHECK(relative_error(g.dbias_ih, p.g_bias_ih) < 5e-2);
      CHECK(relative_error(g.dbias_hh, p.g_bias_hh) < 5e-2);
      if (lstm) {
        CHECK(relative_error(f.c_last, cl) < 3e-2);
        CHECK(relative_error(g.dc0, dc0) < 5e-2);
      }
    }
  }
}
