#include "heed/onednn/padded_rnn.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "heed/common/error.h"
#include "heed/common/rng.h"
#include "heed/onednn/context.h"
#include "support/gradcheck.h"
#include "support/reference_util.h"

using heed::onednn::CellKind;
using heed::onednn::Direction;
using heed::onednn::PaddedRnn;
using heed::onednn::Precision;
using heed::onednn::RnnConfig;
using heed::tensor::Shape;
using heed::tensor::Tensor;
using heed::test::relative_error;
using heed::test::to_double;

namespace {

constexpr double kTol = 1e-5;

struct Params {
  Tensor w_ih, w_hh, b_ih, b_hh, g_ih, g_hh, gb_ih, gb_hh;
  Params(CellKind cell, int64_t in, int64_t h, heed::Rng& rng) {
    const int64_t gh = heed::onednn::gate_count(cell) * h;
    w_ih = heed::test::random_tensor(Shape{gh, in}, rng, -0.5f, 0.5f);
    w_hh = heed::test::random_tensor(Shape{gh, h}, rng, -0.5f, 0.5f);
    b_ih = heed::test::random_tensor(Shape{gh}, rng, -0.5f, 0.5f);
    b_hh = heed::test::random_tensor(Shape{gh}, rng, -0.5f, 0.5f);
    g_ih = Tensor(w_ih.shape());
    g_hh = Tensor(w_hh.shape());
    gb_ih = Tensor(b_ih.shape());
    gb_hh = Tensor(b_hh.shape());
  }
  heed::onednn::RnnWeights weights() const { return {&w_ih, &w_hh, &b_ih, &b_hh}; }
  heed::onednn::RnnGrads grads() { return {&g_ih, &g_hh, &gb_ih, &gb_hh}; }
  void zero() {
    for (Tensor* t : {&g_ih, &g_hh, &gb_ih, &gb_hh}) t->zero();
  }
};

// Sentence n of a time-major [T, N, C] tensor, its first len steps, as [len, 1, C].
Tensor sentence(const Tensor& t, int64_t n, int64_t len) {
  const int64_t batch = t.dim(1), width = t.dim(2);
  Tensor out(Shape{len, 1, width});
  for (int64_t s = 0; s < len; ++s) {
    std::memcpy(out.data() + s * width, t.data() + (s * batch + n) * width,
                static_cast<size_t>(width) * sizeof(float));
  }
  return out;
}

Tensor state_row(const Tensor& t, int64_t n) {
  const int64_t width = t.dim(1);
  Tensor out(Shape{1, width});
  std::memcpy(out.data(), t.data() + n * width, static_cast<size_t>(width) * sizeof(float));
  return out;
}

struct Run {
  Tensor y, h, c, dx, dh0, dc0;
  std::vector<double> g_ih, g_hh, gb_ih, gb_hh;
};

// Forward + backward of a PaddedRnn on a whole batch, with final-state gradients.
Run run(PaddedRnn& rnn, Params& p, const Tensor& x, const std::vector<int64_t>& lengths,
        const Tensor& h0, const Tensor* c0, const Tensor& dy, const Tensor& dh, const Tensor* dc,
        bool want_c) {
  const int64_t T = x.dim(0), N = x.dim(1), H = rnn.rnn().config().hidden_size;
  Run r;
  r.y = Tensor(Shape{T, N, H});
  r.h = Tensor(Shape{N, H});
  r.c = Tensor(Shape{N, H});
  r.dx = Tensor(x.shape());
  r.dh0 = Tensor(Shape{N, H});
  r.dc0 = Tensor(Shape{N, H});
  const bool lstm = rnn.rnn().config().cell == CellKind::kLstm;
  rnn.forward(x, lengths, &h0, c0, r.y, &r.h, want_c ? &r.c : nullptr, true);
  rnn.backward(dy, &dh, want_c ? dc : nullptr, &r.dx, &r.dh0, lstm ? &r.dc0 : nullptr);
  p.zero();
  rnn.rnn().flush_grads(p.grads());
  r.g_ih = to_double(p.g_ih);
  r.g_hh = to_double(p.g_hh);
  r.gb_ih = to_double(p.gb_ih);
  r.gb_hh = to_double(p.gb_hh);
  return r;
}

}  // namespace

TEST_CASE("padded_rnn: a sentence gives the same results alone or padded in a batch",
          "[onednn][fast]") {
  heed::onednn::set_threads(1);
  const int64_t T = 7, N = 4, I = 5, H = 3;
  const std::vector<int64_t> lengths = {5, 2, 1, 4};  // max 5 < T: two all-padding steps
  for (CellKind cell : {CellKind::kLstm, CellKind::kGru}) {
    for (Direction dir : {Direction::kLeftToRight, Direction::kRightToLeft}) {
      for (bool want_c : {false, true}) {
        const bool lstm = cell == CellKind::kLstm;
        if (want_c && !lstm) continue;
        SECTION(std::string(heed::onednn::cell_name(cell)) +
                (dir == Direction::kLeftToRight ? " l2r" : " r2l") + (want_c ? " with c" : "")) {
          heed::Rng rng = heed::make_rng(41);
          Params p(cell, I, H, rng);
          const RnnConfig config{cell, I, H, Precision::kF32};
          PaddedRnn batch_rnn(config, dir);
          batch_rnn.rnn().set_weights(p.weights());
          Tensor x = heed::test::random_tensor(Shape{T, N, I}, rng);
          Tensor h0 = heed::test::random_tensor(Shape{N, H}, rng);
          Tensor c0 = heed::test::random_tensor(Shape{N, H}, rng);
          Tensor dy = heed::test::random_tensor(Shape{T, N, H}, rng);
          Tensor dh = heed::test::random_tensor(Shape{N, H}, rng);
          Tensor dc = heed::test::random_tensor(Shape{N, H}, rng);
          const Run all = run(batch_rnn, p, x, lengths, h0, lstm ? &c0 : nullptr, dy, dh,
                              lstm ? &dc : nullptr, want_c);

          // Padded outputs and input gradients are zeros.
          for (int64_t n = 0; n < N; ++n) {
            for (int64_t t = lengths[static_cast<size_t>(n)]; t < T; ++t) {
              for (int64_t k = 0; k < H; ++k) CHECK(all.y.data()[(t * N + n) * H + k] == 0.f);
              for (int64_t k = 0; k < I; ++k) CHECK(all.dx.data()[(t * N + n) * I + k] == 0.f);
            }
          }
          std::vector<double> sum_ih(all.g_ih.size()), sum_hh(all.g_hh.size()),
              sum_bih(all.gb_ih.size()), sum_bhh(all.gb_hh.size());
          for (int64_t n = 0; n < N; ++n) {
            const int64_t len = lengths[static_cast<size_t>(n)];
            INFO("sentence " << n << " length " << len);
            PaddedRnn alone(config, dir);
            alone.rnn().set_weights(p.weights());
            const Tensor xn = sentence(x, n, len), dyn = sentence(dy, n, len);
            const Tensor h0n = state_row(h0, n), c0n = state_row(c0, n), dhn = state_row(dh, n),
                         dcn = state_row(dc, n);
            const Run one = run(alone, p, xn, {len}, h0n, lstm ? &c0n : nullptr, dyn, dhn,
                                lstm ? &dcn : nullptr, want_c);
            CHECK(relative_error(to_double(one.y), sentence(all.y, n, len)) < kTol);
            CHECK(relative_error(to_double(one.h), state_row(all.h, n)) < kTol);
            if (want_c) CHECK(relative_error(to_double(one.c), state_row(all.c, n)) < kTol);
            CHECK(relative_error(to_double(one.dx), sentence(all.dx, n, len)) < kTol);
            CHECK(relative_error(to_double(one.dh0), state_row(all.dh0, n)) < kTol);
            if (lstm) CHECK(relative_error(to_double(one.dc0), state_row(all.dc0, n)) < kTol);
            for (size_t i = 0; i < sum_ih.size(); ++i) sum_ih[i] += one.g_ih[i];
            for (size_t i = 0; i < sum_hh.size(); ++i) sum_hh[i] += one.g_hh[i];
            for (size_t i = 0; i < sum_bih.size(); ++i) sum_bih[i] += one.gb_ih[i];
            for (size_t i = 0; i < sum_bhh.size(); ++i) sum_bhh[i] += one.gb_hh[i];
          }
          // The batch's weight gradients are the sum over its sentences.
          CHECK(relative_error(sum_ih, all.g_ih) < kTol);
          CHECK(relative_error(sum_hh, all.g_hh) < kTol);
          CHECK(relative_error(sum_bih, all.gb_ih) < kTol);
          CHECK(relative_error(sum_bhh, all.gb_hh) < kTol);

          // Inference gives the training outputs.
          Tensor yi(Shape{T, N, H}), hi(Shape{N, H});
          batch_rnn.forward(x, lengths, &h0, lstm ? &c0 : nullptr, yi, &hi, nullptr, false);
          CHECK(relative_error(to_double(all.y), yi) < kTol);
          CHECK(relative_error(to_double(all.h), hi) < kTol);
        }
      }
    }
  }
}

TEST_CASE("padded_rnn: naive right-to-left over padding is wrong", "[onednn][fast]") {
  heed::onednn::set_threads(1);
  const int64_t T = 6, N = 2, I = 4, H = 3;
  const std::vector<int64_t> lengths = {6, 3};
  heed::Rng rng = heed::make_rng(42);
  Params p(CellKind::kLstm, I, H, rng);
  const RnnConfig config{CellKind::kLstm, I, H, Precision::kF32};
  Tensor x = heed::test::random_tensor(Shape{T, N, I}, rng);
  // Padding holds something, as a real batch would (embeddings of <pad>).
  PaddedRnn exact(config, Direction::kRightToLeft);
  exact.rnn().set_weights(p.weights());
  Tensor y(Shape{T, N, H});
  exact.forward(x, lengths, nullptr, nullptr, y, nullptr, nullptr, false);
  // Naive: reverse the whole padded time axis and run left to right.
  Tensor xr(x.shape());
  for (int64_t t = 0; t < T; ++t) {
    std::memcpy(xr.data() + t * N * I, x.data() + (T - 1 - t) * N * I,
                static_cast<size_t>(N * I) * sizeof(float));
  }
  heed::onednn::Rnn naive(config);
  naive.set_weights(p.weights());
  Tensor yr(Shape{T, N, H});
  naive.forward_inference({&xr}, {&yr});
  // Sentence 1 (length 3): output at reading position 0 is yr[T-1] in the naive run.
  double diff = 0;
  for (int64_t k = 0; k < H; ++k) {
    diff = std::max(diff, std::fabs(static_cast<double>(yr.data()[((T - 1) * N + 1) * H + k]) -
                                    static_cast<double>(y.data()[(0 * N + 1) * H + k])));
  }
  CHECK(diff > 1e-2);
  // For the full-length sentence both agree.
  double same = 0;
  for (int64_t k = 0; k < H; ++k) {
    same = std::max(same, std::fabs(static_cast<double>(yr.data()[((T - 1) * N + 0) * H + k]) -
                                    static_cast<double>(y.data()[(0 * N + 0) * H + k])));
  }
  CHECK(same < 1e-6);
}

TEST_CASE("padded_rnn: gradients pass a finite-difference check", "[onednn][grad]") {
  heed::onednn::set_threads(1);
  const int64_t T = 4, N = 3, I = 3, H = 3;
  const std::vector<int64_t> lengths = {4, 1, 3};
  for (Direction dir : {Direction::kLeftToRight, Direction::kRightToLeft}) {
    SECTION(dir == Direction::kLeftToRight ? "l2r" : "r2l") {
      heed::Rng rng = heed::make_rng(43);
      Params p(CellKind::kLstm, I, H, rng);
      PaddedRnn rnn(RnnConfig{CellKind::kLstm, I, H, Precision::kF32}, dir);
      rnn.rnn().set_weights(p.weights());
      Tensor x = heed::test::random_tensor(Shape{T, N, I}, rng);
      heed::test::Projection py(Shape{T, N, H}, rng), ph(Shape{N, H}, rng), pc(Shape{N, H}, rng);
      Tensor y(Shape{T, N, H}), h(Shape{N, H}), c(Shape{N, H});
      const auto loss = [&] {
        rnn.rnn().weights_changed();
        rnn.forward(x, lengths, nullptr, nullptr, y, &h, &c, false);
        return py(y) + ph(h) + pc(c);
      };
      rnn.forward(x, lengths, nullptr, nullptr, y, &h, &c, true);
      Tensor dx(x.shape());
      rnn.backward(py.grad(), &ph.grad(), &pc.grad(), &dx, nullptr, nullptr);
      rnn.rnn().flush_grads(p.grads());
      const auto result =
          heed::test::gradcheck(loss, {heed::test::grad_param("weight_ih", p.w_ih, p.g_ih),
                                       heed::test::grad_param("weight_hh", p.w_hh, p.g_hh),
                                       heed::test::grad_param("bias_hh", p.b_hh, p.gb_hh),
                                       heed::test::grad_param("x", x, dx)});
      INFO(result.report);
      CHECK(result.ok);
      CHECK(result.checked > 50);
    }
  }
}

TEST_CASE("padded_rnn: bf16 runs both directions close to f32", "[onednn][fast]") {
  if (!heed::onednn::bf16_supported()) {
    WARN("SKIPPED: bf16 not supported by oneDNN on this CPU");
    return;
  }
  heed::onednn::set_threads(1);
  const int64_t T = 6, N = 3, I = 16, H = 8;
  const std::vector<int64_t> lengths = {6, 2, 4};
  for (Direction dir : {Direction::kLeftToRight, Direction::kRightToLeft}) {
    heed::Rng rng = heed::make_rng(44);
    Params p(CellKind::kLstm, I, H, rng);
    Tensor x = heed::test::random_tensor(Shape{T, N, I}, rng);
    Tensor dy = heed::test::random_tensor(Shape{T, N, H}, rng);
    Tensor dh = heed::test::random_tensor(Shape{N, H}, rng);
    Tensor h0(Shape{N, H});
    PaddedRnn f32(RnnConfig{CellKind::kLstm, I, H, Precision::kF32}, dir);
    PaddedRnn bf16(RnnConfig{CellKind::kLstm, I, H, Precision::kBF16}, dir);
    f32.rnn().set_weights(p.weights());
    bf16.rnn().set_weights(p.weights());
    const Run a = run(f32, p, x, lengths, h0, nullptr, dy, dh, nullptr, false);
    const Run b = run(bf16, p, x, lengths, h0, nullptr, dy, dh, nullptr, false);
    CHECK(relative_error(to_double(a.y), b.y) < 3e-2);
    CHECK(relative_error(to_double(a.h), b.h) < 3e-2);
    CHECK(relative_error(to_double(a.dx), b.dx) < 5e-2);
    CHECK(relative_error(a.g_ih, b.g_ih) < 5e-2);
    CHECK(relative_error(a.g_hh, b.g_hh) < 5e-2);
  }
}
