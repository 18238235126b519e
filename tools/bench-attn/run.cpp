#include "run.h"

#include <random>

#include "heed/attention/registry.h"
#include "heed/common/stats.h"
#include "heed/common/timer.h"
#include "heed/onednn/context.h"

namespace heed::bench_attn {

using namespace heed::attention;

namespace {
using tensor::Shape;
using tensor::Tensor;

void fill_uniform(Tensor& t, std::mt19937_64& rng, float scale) {
  std::uniform_real_distribution<float> uniform(-scale, scale);
  float* data = t.data();
  for (int64_t i = 0; i < t.numel(); ++i) data[i] = uniform(rng);
}

int64_t tape_bytes(const AttentionTape& tape) {
  size_t bytes = tape.weights.bytes() + tape.normalized.bytes() + tape.centres.bytes() +
                 tape.spans.size() * sizeof(Span);
  for (const Tensor& t : tape.saved) bytes += t.bytes();
  return int64_t(bytes);
}

}  // namespace

BenchResult run_point(const BenchPoint& point, int64_t warmup, int64_t repeats, uint64_t seed) {
  onednn::set_threads(int(point.threads));
  const AttentionConfig config = attention_config(point);
  layers::ParameterStore store;
  const auto attention = make_attention(point.mechanism, config, store, "decoder/attention/");
  std::mt19937_64 rng(seed);
  for (layers::Parameter* p : store.all()) fill_uniform(p->value, rng, 0.05f);
  attention->weights_changed();

  const bool step = point.mode == BenchMode::kStep;
  const bool training = point.pass == BenchPass::kForwardBackward;
  const bool precompute_each_step = point.precompute == 0;
  const int64_t n = point.batch, s = point.source_length, t = point.target_length;
  const int64_t q = config.query_size, k = config.key_size;
  const int64_t c = context_size(point.mechanism, config);
  const int64_t calls = step ? t : 1, tq = step ? 1 : t;

  Tensor keys(Shape{s, n, k});
  fill_uniform(keys, rng, 1.f);
  const std::vector<int64_t> lengths(size_t(n), s);
  std::vector<Tensor> queries, contexts, tapes_d_context, d_queries;
  for (int64_t i = 0; i < calls; ++i) {
    queries.emplace_back(Shape{tq, n, q});
    fill_uniform(queries.back(), rng, 1.f);
    contexts.emplace_back();
    if (training) {
      tapes_d_context.emplace_back(Shape{tq, n, c});
      fill_uniform(tapes_d_context.back(), rng, 1.f);
      d_queries.emplace_back();
    }
  }
  std::vector<AttentionTape> tapes(training ? size_t(calls) : 0);
  Tensor d_keys;
  if (training) d_keys = Tensor(Shape{s, n, k});

  const auto run_once = [&] {
    for (int64_t i = 0; i < calls; ++i) {
      const size_t at = size_t(i);
      if (i == 0 || precompute_each_step) attention->prepare(keys, lengths, training);
      attention->forward(queries[at], step ? i : 0, contexts[at], nullptr,
                         training ? &tapes[at] : nullptr);
      if (training && precompute_each_step) {
        attention->backward(tapes[at], tapes_d_context[at], d_queries[at]);
        attention->finish_backward(d_keys);
      }
    }
    if (training && !precompute_each_step) {
      for (int64_t i = calls - 1; i >= 0; --i) {
        attention->backward(tapes[size_t(i)], tapes_d_context[size_t(i)], d_queries[size_t(i)]);
      }
      attention->finish_backward(d_keys);
    }
  };

  for (int64_t i = 0; i < warmup; ++i) run_once();
  std::vector<double> times;
  for (int64_t i = 0; i < repeats; ++i) {
    Timer timer;
    run_once();
    times.push_back(timer.seconds() * 1000);
  }

  BenchResult result;
  result.point = point;
  result.median_ms = quantile(times, 0.5);
  result.p10_ms = quantile(times, 0.1);
  result.p90_ms = quantile(times, 0.9);
  result.flops = point_flops(point);
  size_t bytes = keys.bytes() + d_keys.bytes();
  for (const auto* list : {&queries, &contexts, &tapes_d_context, &d_queries}) {
    for (const Tensor& tensor : *list) bytes += tensor.bytes();
  }
  for (const layers::Parameter* p : store.all()) bytes += p->value.bytes() + p->grad.bytes();
  result.bytes = int64_t(bytes);
  for (const AttentionTape& tape : tapes) result.bytes += tape_bytes(tape);
  return result;
}

}  // namespace heed::bench_attn
