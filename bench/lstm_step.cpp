// heed_bench_lstm_step: what a stepped decoder LSTM's training costs three ways
// (docs/benchmarks.md, "heed beside Marian", bf16 training against its peak). Not a test: it
// asserts nothing about time.
//
//   heed_bench_lstm_step [--precision f32|bf16] [--threads n] [--rows N] [--input I]
//                        [--hidden H] [--steps T] [--repeats R] [--peak-size P]
//
// Both stepped ways run onednn::Rnn one step at a time, as heed's Bahdanau decoder does in
// training (forward_training, then backward in reverse, each with its tape, then flush_grads):
// onednn on oneDNN's LSTM primitive (RnnConfig::own_lstm_step off), whose backward forms each
// step's weight gradients, a product over N rows into the whole f32 gradient; heed on heed's own
// step (lstm_step.h), whose weight gradients are one product over every step's rows at the flush.
// products: the matrix products alone of such a step on MatMul — per step the gates
// [N, 4H] = [x; h]·Wᵀ and the input gradients d[x; h] = dgates·W, once dW += dgatesᵀ·[x; h] —
// with no gate arithmetic and no copies: the ceiling of heed's step. All repack their weights
// once a repeat, as after an optimizer step. Output: "# " lines, then TSV rows way, part, ms (per
// T steps, median over R repeats), gflop, gflops, peak_fraction.
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <utility>
#include <vector>

#include "common/run.h"
#include "heed/common/stats.h"
#include "heed/onednn/matmul.h"
#include "heed/onednn/rnn.h"
#include "phases.h"

namespace {

using heed::onednn::MatMul;
using heed::onednn::MatrixRef;
using heed::tensor::Shape;
using heed::tensor::Tensor;

struct Settings : heed::bench::ModelOptions {
  int64_t rows = 64;    // the bench's batch
  int64_t input = 768;  // heed-marian-like's decoder: embedding 256 + context 512
  int64_t steps = 17;   // target steps of the bench's batches (Multi30k BPE, 64 sentences)
};

heed::cli::ToolInfo info() {
  return heed::bench::bench_info(
      "lstm-step", "[options]",
      "Times a stepped LSTM's training on oneDNN's RNN primitive, on heed's own step, and the "
      "matrix products alone of heed's step (its ceiling) (bench/lstm_step.cpp, "
      "docs/benchmarks.md).");
}

bool parse(int argc, char** argv, Settings& s) {
  return heed::bench::parse_options(argc, argv, info(), s, [&s](heed::cli::CommandLine& cl) {
    using heed::cli::number;
    const heed::cli::Bounds size = heed::cli::between(1, 1 << 14);
    // clang-format off
    cl.group("LSTM")
        ("rows",  number(&s.rows, size), "rows a step (the batch)")
        ("input", number(&s.input, size), "input width of a step")
        ("steps", number(&s.steps, heed::cli::between(1, 1000)), "steps of a sequence");
    // clang-format on
  });
}

Tensor uniform(const Shape& shape, std::mt19937& rng) {
  Tensor t(shape);
  std::uniform_real_distribution<float> u(-0.1f, 0.1f);
  float* p = t.data();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = u(rng);
  return t;
}

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double, std::milli>(end - start).count();
}

// Median milliseconds of work over repeats, after one untimed run.
double median_ms(int64_t repeats, const std::function<void()>& work) {
  work();
  std::vector<double> ms;
  for (int64_t r = 0; r < repeats; ++r) {
    const Clock::time_point start = Clock::now();
    work();
    ms.push_back(ms_between(start, Clock::now()));
  }
  return heed::median(ms);
}

int run(int argc, char** argv) {
  Settings s;
  if (!parse(argc, argv, s)) return 0;
  const heed::bench::Machine machine = heed::bench::measure_machine(s);
  const int64_t n = s.rows, in = s.input, h = s.hidden, t_steps = s.steps, gates = 4 * h;
  std::mt19937 rng(5);

  // Rnn a step at a time, on oneDNN's primitive or on heed's own step.
  Tensor w_ih = uniform(Shape{gates, in}, rng), w_hh = uniform(Shape{gates, h}, rng);
  Tensor b_ih = uniform(Shape{gates}, rng), b_hh = uniform(Shape{gates}, rng);
  Tensor g_ih(Shape{gates, in}), g_hh(Shape{gates, h}), g_bih(Shape{gates}), g_bhh(Shape{gates});
  std::vector<Tensor> x, y, hs, cs, dy;
  for (int64_t t = 0; t < t_steps; ++t) {
    x.push_back(uniform(Shape{1, n, in}, rng));
    y.emplace_back(Shape{1, n, h});
    dy.push_back(uniform(Shape{1, n, h}, rng));
  }
  for (int64_t t = 0; t <= t_steps; ++t) {
    hs.emplace_back(Shape{n, h});
    cs.emplace_back(Shape{n, h});
  }
  Tensor dx(Shape{1, n, in}), dh[2] = {Tensor(Shape{n, h}), Tensor(Shape{n, h})},
                              dc[2] = {Tensor(Shape{n, h}), Tensor(Shape{n, h})};
  // Median forward and backward milliseconds of T steps.
  auto stepped = [&](bool own_step) {
    heed::onednn::RnnConfig config;
    config.input_size = in;
    config.hidden_size = h;
    config.precision = s.precision;
    config.own_lstm_step = own_step;
    heed::onednn::Rnn rnn(config);
    rnn.set_weights({&w_ih, &w_hh, &b_ih, &b_hh});
    std::vector<heed::onednn::RnnTape> tapes(static_cast<size_t>(t_steps));
    // Each backward needs its forward's tapes: both timed in one run, apart.
    std::vector<double> forward_ms, backward_ms;
    for (int64_t r = 0; r <= s.repeats; ++r) {  // the first untimed
      const Clock::time_point start = Clock::now();
      rnn.weights_changed();
      for (size_t t = 0; t < size_t(t_steps); ++t) {
        rnn.forward_training({&x[t], &hs[t], &cs[t]}, {&y[t], &hs[t + 1], &cs[t + 1]}, tapes[t]);
      }
      const Clock::time_point middle = Clock::now();
      dh[0].zero();
      dc[0].zero();
      for (size_t t = size_t(t_steps); t-- > 0;) {
        const size_t from = (t_steps - 1 - t) % 2, to = 1 - from;
        rnn.backward(tapes[t], {&dy[t], &dh[from], &dc[from]}, {&dx, &dh[to], &dc[to]});
      }
      rnn.flush_grads({&g_ih, &g_hh, &g_bih, &g_bhh});
      const Clock::time_point end = Clock::now();
      if (r == 0) continue;
      forward_ms.push_back(ms_between(start, middle));
      backward_ms.push_back(ms_between(middle, end));
    }
    return std::pair{heed::median(forward_ms), heed::median(backward_ms)};
  };
  const auto [onednn_fwd, onednn_bwd] = stepped(false);
  const auto [heed_fwd, heed_bwd] = stepped(true);

  // The products of a step of heed's own: W = [W_ih W_hh] [4H, I + H], [x; h] of every step.
  MatMul gates_mm(s.precision), data_mm(s.precision), weight_mm(s.precision);
  Tensor w = uniform(Shape{gates, in + h}, rng), dw(Shape{gates, in + h});
  Tensor xh = uniform(Shape{t_steps * n, in + h}, rng);
  Tensor dgates = uniform(Shape{t_steps * n, gates}, rng);
  Tensor gate_out(Shape{n, gates}), dxh(Shape{n, in + h});
  heed::onednn::MatMulOptions constant;
  constant.constant_b = true;
  auto products_forward = [&] {
    gates_mm.weights_changed();
    for (int64_t t = 0; t < t_steps; ++t) {
      gates_mm.run(MatrixRef::of(xh.slice(t * n, (t + 1) * n)), MatrixRef::of(w).transposed(),
                   MatrixRef::of(gate_out), constant);
    }
  };
  heed::onednn::MatMulOptions accumulate;
  accumulate.accumulate = true;
  auto products_backward_data = [&] {
    data_mm.weights_changed();
    for (int64_t t = t_steps; t-- > 0;) {
      data_mm.run(MatrixRef::of(dgates.slice(t * n, (t + 1) * n)), MatrixRef::of(w),
                  MatrixRef::of(dxh), constant);
    }
  };
  auto products_weights = [&] {
    weight_mm.run(MatrixRef::of(dgates).transposed(), MatrixRef::of(xh), MatrixRef::of(dw),
                  accumulate);
  };
  const double own_fwd = median_ms(s.repeats, products_forward);
  const double own_data = median_ms(s.repeats, products_backward_data);
  const double own_weights = median_ms(s.repeats, products_weights);

  const double forward_flop = 2.0 * double(t_steps * n) * double(gates) * double(in + h);
  heed::bench::print_machine(machine, s);
  std::printf(
      "# lstm: %lld rows, input %lld, hidden %lld, %lld steps, %s, %d threads; median of %lld "
      "repeats\n",
      static_cast<long long>(n), static_cast<long long>(in), static_cast<long long>(h),
      static_cast<long long>(t_steps), heed::onednn::precision_name(s.precision), s.threads,
      static_cast<long long>(s.repeats));
  std::printf("way\tpart\tms\tgflop\tgflops\tpeak_fraction\n");
  auto row = [&](const char* way, const char* part, double ms, double flop) {
    const double gflops = flop / (ms * 1e6);
    std::printf("%s\t%s\t%.3f\t%.3f\t%.1f\t%.3f\n", way, part, ms, flop / 1e9, gflops,
                gflops / machine.peak_gflops);
  };
  row("onednn", "forward", onednn_fwd, forward_flop);
  row("onednn", "backward", onednn_bwd, 2 * forward_flop);
  row("onednn", "both", onednn_fwd + onednn_bwd, 3 * forward_flop);
  row("heed", "forward", heed_fwd, forward_flop);
  row("heed", "backward", heed_bwd, 2 * forward_flop);
  row("heed", "both", heed_fwd + heed_bwd, 3 * forward_flop);
  row("products", "forward", own_fwd, forward_flop);
  row("products", "backward, input gradients each step", own_data, forward_flop);
  row("products", "backward, weight gradient over all steps", own_weights, forward_flop);
  row("products", "both", own_fwd + own_data + own_weights, 3 * forward_flop);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return heed::cli::run_tool(argc, argv, info(), run);
}
