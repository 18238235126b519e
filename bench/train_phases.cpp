// heed_bench_train_phases: where one training update spends its time, phase by phase, and the
// FLOP rate of each phase against this machine's measured matmul peak (docs/benchmarks.md
// "Where a training update goes"). Not a test: it asserts nothing about time.
// bench/train_phases.sh runs it for f32 and bf16 beside the machine report.
//
//   heed_bench_train_phases [--precision f32|bf16] [--threads n] [--batch N] [--length L]
//                           [--vocab V] [--hidden H] [--embed E] [--attention NAME]
//                           [--steps K] [--repeats R] [--warmup W] [--peak-size P]
//
// The model of bench/train_speed.sh and the PyTorch peer: bi-LSTM encoder H/2 + H/2, LSTM
// decoder H with input feeding, Luong general attention, embeddings E, vocabularies V, Adam,
// clipping 5, no dropout; batches of N random pairs, source L tokens, target L − 1 tokens +
// </s> (L steps). W untimed updates, then R repeats of K updates; each phase's figure is the
// median over repeats of its seconds per update (profile.h: exclusive wall time). Output: "# "
// machine lines, then TSV rows phase, ms, share, gflop, gflops, peak_fraction; "other" is the
// update's time outside every phase, "update" the whole.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench_args.h"
#include "heed/common/error.h"
#include "heed/common/profile.h"
#include "heed/common/stats.h"
#include "heed/model/batch.h"
#include "heed/model/seq2seq.h"
#include "heed/onednn/context.h"
#include "heed/onednn/matmul_peak.h"
#include "heed/text/vocab.h"
#include "heed/train/optimizer.h"
#include "heed/train/update.h"
#include "update_flops.h"

namespace {

using heed::profile::Phase;

struct Settings : heed::bench::ModelOptions {
  int64_t batch = 64;
  int64_t length = 20;
  int64_t steps = 10;
  int64_t warmup = 3;
};

using heed::median;
using heed::bench::parse_count;

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw heed::ConfigError(flag + " needs a value");
    const std::string value = argv[++i];
    if (heed::bench::parse_model_option(flag, value, s)) continue;
    if (flag == "--batch") {
      s.batch = parse_count(flag, value);
    } else if (flag == "--length") {
      s.length = std::max<int64_t>(2, parse_count(flag, value));
    } else if (flag == "--steps") {
      s.steps = parse_count(flag, value);
    } else if (flag == "--warmup") {
      s.warmup = parse_count(flag, value);
    } else {
      throw heed::ConfigError("unknown option " + flag);
    }
  }
  return s;
}

int run(const Settings& s) {
  heed::onednn::set_threads(s.threads);
  const heed::onednn::BackendInfo backend = heed::onednn::backend_info();
  const heed::onednn::MatmulPeak peak =
      heed::onednn::measure_matmul_peak(s.peak_size, s.threads, 3);
  const bool bf16 = s.precision == "bf16";
  const double peak_gflops = bf16 ? peak.bf16_gflops : peak.f32_gflops;

  const heed::model::ModelConfig config =
      heed::bench::bench_model_config(s.attention, s.hidden, s.embed, s.vocab);
  heed::model::Seq2Seq model(config,
                             bf16 ? heed::onednn::Precision::kBF16 : heed::onednn::Precision::kF32);
  model.initialize(7);
  std::vector<heed::train::ParamRef> params;
  for (heed::layers::Parameter* p : model.parameters().all()) {
    params.push_back({p->name, p->value.data(), p->grad.data(), size_t(p->value.numel())});
  }
  const auto optimizer = heed::train::make_optimizer({});

  // Random pairs, drawn once: a pool of batches the updates cycle through.
  std::mt19937 rng(11);
  std::uniform_int_distribution<int32_t> word(heed::text::Vocab::kEosId + 1, s.vocab - 1);
  constexpr int64_t kPool = 8;
  std::vector<heed::model::Example> examples(size_t(kPool * s.batch));
  for (auto& e : examples) {
    for (int64_t i = 0; i < s.length; ++i) e.src.push_back(word(rng));
    for (int64_t i = 0; i + 1 < s.length; ++i) e.tgt.push_back(word(rng));
  }
  std::vector<std::vector<size_t>> plans(kPool);
  for (size_t i = 0; i < examples.size(); ++i) plans[i % kPool].push_back(i);

  heed::model::LossOptions options;
  options.training = false;  // no dropout: the peer's model has none
  heed::Rng dropout_rng = heed::make_rng(3, 0);
  int64_t next = 0;
  auto one_update = [&] {
    heed::model::Batch batch;
    {
      heed::profile::Scope phase(Phase::kBatching);
      batch = heed::model::make_batch(examples, plans[size_t(next++ % kPool)]);
    }
    const heed::train::UpdateResult result =
        heed::train::update(model, *optimizer, params, batch, options, 5.0, 1e-3f, dropout_rng);
    if (!result.applied) throw heed::DataError("the loss is not finite");
  };
  for (int64_t i = 0; i < s.warmup; ++i) one_update();

  heed::profile::set_enabled(true);
  std::array<std::vector<double>, heed::profile::kPhases> phase_ms;
  std::vector<double> update_ms, other_ms;
  for (int64_t r = 0; r < s.repeats; ++r) {
    heed::profile::reset();
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < s.steps; ++i) one_update();
    const double total =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count() /
        double(s.steps);
    const auto seconds = heed::profile::seconds();
    double covered = 0;
    for (size_t p = 0; p < heed::profile::kPhases; ++p) {
      phase_ms[p].push_back(1e3 * seconds[p] / double(s.steps));
      covered += phase_ms[p].back();
    }
    update_ms.push_back(total);
    other_ms.push_back(total - covered);
  }

  const heed::bench::UpdateFlops flops =
      heed::bench::update_flops(model.config(), model.attention(), s.batch, s.length, s.length);
  std::array<double, heed::profile::kPhases> phase_flops{};
  phase_flops[size_t(Phase::kEncoder)] = flops.encoder;
  phase_flops[size_t(Phase::kDecoderRnn)] = flops.decoder_rnn;
  phase_flops[size_t(Phase::kAttention)] = flops.attention;
  phase_flops[size_t(Phase::kOutput)] = flops.output;

  std::printf("# cpu: %s\n# isa: %s\n# onednn: %s\n", backend.cpu_model.c_str(),
              backend.isa.c_str(), backend.onednn_version.c_str());
  std::printf("# matmul_peak_gflops: f32=%.1f bf16=%.1f (%lld², best of 3, %d threads)\n",
              peak.f32_gflops, peak.bf16_gflops, static_cast<long long>(s.peak_size), s.threads);
  std::printf(
      "# model: %s, bi-LSTM %d+%d, LSTM %d with input feeding, embed %d, vocab %d, %lld "
      "parameters\n",
      s.attention.c_str(), s.hidden / 2, s.hidden / 2, s.hidden, s.embed, s.vocab,
      static_cast<long long>(model.parameters().numel()));
  std::printf(
      "# update: batch %lld, source %lld, target %lld steps, %s, %d threads; median of %lld "
      "repeats of %lld updates after %lld\n",
      static_cast<long long>(s.batch), static_cast<long long>(s.length),
      static_cast<long long>(s.length), s.precision.c_str(), s.threads,
      static_cast<long long>(s.repeats), static_cast<long long>(s.steps),
      static_cast<long long>(s.warmup));
  const double update = median(update_ms);
  std::printf("phase\tms\tshare\tgflop\tgflops\tpeak_fraction\n");
  auto row = [&](const char* name, double ms, double gflop) {
    if (gflop > 0) {
      const double rate = gflop / (ms * 1e-3);
      std::printf("%s\t%.2f\t%.3f\t%.3f\t%.1f\t%.3f\n", name, ms, ms / update, gflop, rate,
                  peak_gflops > 0 ? rate / peak_gflops : 0.0);
    } else {
      std::printf("%s\t%.2f\t%.3f\t0\t-\t-\n", name, ms, ms / update);
    }
  };
  for (size_t p = 0; p < heed::profile::kPhases; ++p) {
    row(heed::profile::phase_name(Phase(p)), median(phase_ms[p]), phase_flops[p] * 1e-9);
  }
  row("other", median(other_ms), 0);
  row("update", update, flops.total() * 1e-9);
  const double tokens = double(s.batch * s.length);
  std::printf("# target tokens per second: %.0f\n", tokens / (update * 1e-3));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "heed_bench_train_phases: error: %s\n", e.what());
    return 64;
  }
}
