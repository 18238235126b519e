// Throughput probe for the oneDNN backend (not a test, not built by CMake). Build by hand:
//   g++ -O2 -std=c++17 -I lib bench/onednn_probe.cpp build-nn/lib/libheed_core.a
//       -ldnnl -lgomp -lspdlog -lfmt -o /tmp/onednn_probe
//   OMP_PROC_BIND=true /tmp/onednn_probe 2
// Prints TSV: op, precision, shape, median ms, p10, p90, throughput.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "heed/common/rng.h"
#include "heed/onednn/context.h"
#include "heed/onednn/linear.h"
#include "heed/onednn/rnn.h"

using namespace heed;
using onednn::Precision;
using tensor::Shape;
using tensor::Tensor;

namespace {

Tensor random(const Shape& shape, Rng& rng, float scale = 0.5f) {
  std::uniform_real_distribution<float> d(-scale, scale);
  Tensor t = Tensor::uninitialized(shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = d(rng);
  return t;
}

struct Stats {
  double median, p10, p90;
};

Stats measure(const std::function<void()>& body, double min_seconds = 1.0, int min_reps = 5) {
  body();
  body();  // warm-up: primitives created, weights packed
  std::vector<double> ms;
  const auto start = std::chrono::steady_clock::now();
  while (static_cast<int>(ms.size()) < min_reps ||
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
             min_seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    body();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  const auto at = [&](double q) {
    return ms[static_cast<size_t>(q * static_cast<double>(ms.size() - 1))];
  };
  return {at(0.5), at(0.1), at(0.9)};
}

void row(const std::string& op, Precision p, const std::string& shape, const Stats& s,
         const std::string& throughput) {
  std::printf("%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%s\n", op.c_str(), onednn::precision_name(p),
              shape.c_str(), s.median, s.p10, s.p90, throughput.c_str());
  std::fflush(stdout);
}

// LSTM layer over a whole sequence: forward_training + backward + flush, and the
// once-per-update reorder (weights_changed), as one training step of one layer sees it.
void rnn_sequence(onednn::CellKind cell, Precision p, int64_t T, int64_t N, int64_t I, int64_t H,
                  Rng& rng) {
  onednn::Rnn rnn({cell, I, H, p});
  const int64_t G = onednn::gate_count(cell);
  Tensor wih = random(Shape{G * H, I}, rng), whh = random(Shape{G * H, H}, rng);
  Tensor bih = random(Shape{G * H}, rng), bhh = random(Shape{G * H}, rng);
  Tensor gih(wih.shape()), ghh(whh.shape()), gbih(bih.shape()), gbhh(bhh.shape());
  rnn.set_weights({&wih, &whh, &bih, &bhh});
  Tensor x = random(Shape{T, N, I}, rng, 1.f), y(Shape{T, N, H}), dy = random(Shape{T, N, H}, rng);
  Tensor dx(x.shape());
  onednn::RnnTape tape;
  const std::string shape = "T=" + std::to_string(T) + " N=" + std::to_string(N) +
                            " I=" + std::to_string(I) + " H=" + std::to_string(H);
  const double tokens = static_cast<double>(T * N);
  Stats s = measure([&] {
    rnn.weights_changed();
    rnn.forward_training({&x}, {&y}, tape);
    rnn.backward(tape, {&dy}, {&dx});
    rnn.flush_grads({&gih, &ghh, &gbih, &gbhh});
  });
  const double flops =
      3.0 * 2.0 * static_cast<double>(G) * tokens * static_cast<double>((I + H) * H);
  const std::string name = onednn::cell_name(cell);
  row(name + " fwd+bwd", p, shape, s,
      std::to_string(static_cast<int>(tokens / s.median * 1e3)) + " tok/s " +
          std::to_string(static_cast<int>(flops / s.median / 1e6)) + " GF/s");
  s = measure([&] { rnn.forward_inference({&x}, {&y}); });
  row(name + " fwd_inference", p, shape, s,
      std::to_string(static_cast<int>(tokens / s.median * 1e3)) + " tok/s");
}

// The decoder with input feeding: T single steps forward, then T steps backward.
void lstm_steps(Precision p, int64_t T, int64_t N, int64_t I, int64_t H, Rng& rng) {
  onednn::Rnn rnn({onednn::CellKind::kLstm, I, H, p});
  Tensor wih = random(Shape{4 * H, I}, rng), whh = random(Shape{4 * H, H}, rng);
  Tensor bih = random(Shape{4 * H}, rng), bhh = random(Shape{4 * H}, rng);
  Tensor gih(wih.shape()), ghh(whh.shape()), gbih(bih.shape()), gbhh(bhh.shape());
  rnn.set_weights({&wih, &whh, &bih, &bhh});
  Tensor x = random(Shape{T, N, I}, rng, 1.f), y(Shape{T, N, H}), c(Shape{T, N, H});
  Tensor dy = random(Shape{T, N, H}, rng), dx(x.shape());
  Tensor dh(Shape{N, H}), dc(Shape{N, H}), dh_prev(Shape{N, H}), dc_prev(Shape{N, H});
  std::vector<onednn::RnnTape> tapes(static_cast<size_t>(T));
  Stats s = measure([&] {
    rnn.weights_changed();
    for (int64_t t = 0; t < T; ++t) {
      const Tensor xt = x.slice(t, t + 1);
      Tensor yt = y.slice(t, t + 1), ct = c.select(t);
      const Tensor hp = t ? y.select(t - 1) : Tensor();
      const Tensor cp = t ? c.select(t - 1) : Tensor();
      rnn.forward_training({&xt, t ? &hp : nullptr, t ? &cp : nullptr}, {&yt, nullptr, &ct},
                           tapes[static_cast<size_t>(t)]);
    }
    dh.zero();
    dc.zero();
    for (int64_t t = T - 1; t >= 0; --t) {
      const Tensor dyt = dy.slice(t, t + 1);
      Tensor dxt = dx.slice(t, t + 1);
      rnn.backward(tapes[static_cast<size_t>(t)], {&dyt, &dh, &dc}, {&dxt, &dh_prev, &dc_prev});
      std::swap(dh, dh_prev);
      std::swap(dc, dc_prev);
    }
    rnn.flush_grads({&gih, &ghh, &gbih, &gbhh});
  });
  const double tokens = static_cast<double>(T * N);
  row("lstm steps fwd+bwd", p,
      std::to_string(T) + "×(T=1) N=" + std::to_string(N) + " I=" + std::to_string(I) +
          " H=" + std::to_string(H),
      s, std::to_string(static_cast<int>(tokens / s.median * 1e3)) + " tok/s");
}

void linear(Precision p, int64_t M, int64_t in, int64_t out, Rng& rng) {
  onednn::Linear lin(in, out, p);
  Tensor w = random(Shape{out, in}, rng), b = random(Shape{out}, rng);
  lin.set_weights(w, &b);
  Tensor x = random(Shape{M, in}, rng, 1.f), y(Shape{M, out}), dy = random(Shape{M, out}, rng);
  Tensor dx(x.shape()), dw(w.shape()), db(b.shape());
  const std::string shape =
      "M=" + std::to_string(M) + " " + std::to_string(in) + "→" + std::to_string(out);
  const double flops = 2.0 * static_cast<double>(M * in * out);
  const auto gf = [&](const Stats& s) {
    return std::to_string(static_cast<int>(flops / s.median / 1e6)) + " GF/s";
  };
  Stats s = measure([&] { lin.forward(x, y); });
  row("linear fwd", p, shape, s, gf(s));
  s = measure([&] { lin.backward_data(dy, dx); });
  row("linear bwd_data", p, shape, s, gf(s));
  s = measure([&] { lin.backward_weights(x, dy, dw, &db); });
  row("linear bwd_weights+bias", p, shape, s, gf(s));
  s = measure([&] {
    lin.weights_changed();
    lin.forward(x, y);
    lin.backward(x, dy, &dx, dw, &db);
  });
  row("linear fwd+bwd (+repack)", p, shape, s,
      std::to_string(static_cast<int>(3 * flops / s.median / 1e6)) + " GF/s");
}

}  // namespace

int main(int argc, char** argv) {
  onednn::set_threads(argc > 1 ? std::atoi(argv[1]) : 2);
  std::printf("# %s\n", onednn::backend_info().summary().c_str());
  std::printf("op\tprecision\tshape\tmedian_ms\tp10_ms\tp90_ms\tthroughput\n");
  Rng rng = make_rng(1);
  std::vector<Precision> precisions = {Precision::kF32};
  if (onednn::bf16_supported()) precisions.push_back(Precision::kBF16);
  for (Precision p : precisions) {
    rnn_sequence(onednn::CellKind::kLstm, p, 20, 64, 256, 256, rng);
    rnn_sequence(onednn::CellKind::kLstm, p, 20, 64, 768, 512, rng);
    rnn_sequence(onednn::CellKind::kGru, p, 20, 64, 256, 256, rng);
    lstm_steps(p, 20, 64, 768, 512, rng);
    linear(p, 1280, 512, 8000, rng);
  }
  return 0;
}
