// heed_bench_train_phases: where one training update spends its time, phase by phase, and the
// FLOP rate of each phase against this machine's measured matmul peak (docs/benchmarks.md
// "Where a training update goes"). Not a test: it asserts nothing about time.
// bench/train_phases.sh runs it for f32 and bf16 beside the machine report.
//
//   heed_bench_train_phases [--precision f32|bf16] [--threads n] [--batch N] [--length L]
//                           [--vocab V] [--hidden H] [--embed E] [--attention NAME]
//                           [--decoder luong|bahdanau|concat]
//                           [--steps K] [--repeats R] [--warmup W] [--peak-size P]
//
// The model of bench/train_speed.sh and the PyTorch peer: bi-LSTM encoder H/2 + H/2, LSTM
// decoder H with input feeding (Luong's arrangement; --decoder bahdanau: heed's model nearest
// Marian's s2s), Luong general attention, embeddings E, vocabularies V, Adam,
// clipping 5, no dropout; batches of N random pairs, source L tokens, target L − 1 tokens +
// </s> (L steps). W untimed updates, then R repeats of K updates; each phase's figure is the
// median over repeats of its seconds per update (profile.h: exclusive wall time). Output: "# "
// machine lines, then TSV rows phase, ms, share, gflop, gflops, peak_fraction; "other" is the
// update's time outside every phase, "update" the whole.
#include <array>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "common/run.h"
#include "heed/common/error.h"
#include "heed/model/batch.h"
#include "heed/train/optimizer.h"
#include "heed/train/update.h"
#include "phases.h"
#include "update_flops.h"

namespace {

using heed::profile::Phase;

struct Settings : heed::bench::ModelOptions {
  int64_t batch = 64;
  int64_t length = 20;
  int64_t steps = 10;
  int64_t warmup = 3;
};

heed::cli::ToolInfo info() {
  return heed::bench::bench_info(
      "train-phases", "[options]",
      "Times a training update of the benchmark model phase by phase and rates each phase's "
      "FLOPs against this machine's matmul peak (bench/train_phases.cpp, docs/benchmarks.md).");
}

// The options; false when the program is done (--help, --print-config).
bool parse(int argc, char** argv, Settings& s) {
  return heed::bench::parse_options(argc, argv, info(), s, [&s](heed::cli::CommandLine& cl) {
    using heed::cli::number;
    const heed::cli::Bounds count = heed::cli::at_least(1);
    // clang-format off
    cl.group("Updates")
        ("decoder", heed::cli::choice(&s.decoder, heed::model::to_string(s.decoder),
                                      heed::model::parse_decoder),
                    "the arrangement around the attention: luong (with input feeding), "
                    "bahdanau or concat")
        ("batch",   number(&s.batch, count), "sentence pairs per batch")
        ("length",  number(&s.length, heed::cli::at_least(2)),
                    "source tokens; the target has length - 1 and </s>")
        ("steps",   number(&s.steps, count), "updates per timed repeat")
        ("warmup",  number(&s.warmup, count), "untimed updates first");
    // clang-format on
  });
}

int run(int argc, char** argv) {
  Settings s;
  if (!parse(argc, argv, s)) return 0;
  const heed::bench::Machine machine = heed::bench::measure_machine(s);
  const std::unique_ptr<heed::model::Seq2Seq> model = heed::bench::make_model(s);
  std::vector<heed::train::ParamRef> params;
  for (heed::layers::Parameter* p : model->parameters().all()) {
    params.push_back({p->name, p->value.data(), p->grad.data(), size_t(p->value.numel())});
  }
  const auto optimizer = heed::train::make_optimizer({});

  // Random pairs, drawn once: a pool of batches the updates cycle through.
  std::mt19937 rng(11);
  constexpr int64_t kPool = 8;
  std::vector<heed::model::Example> examples(size_t(kPool * s.batch));
  for (auto& e : examples) {
    e.src = heed::bench::random_words(rng, s.length, s.vocab);
    e.tgt = heed::bench::random_words(rng, s.length - 1, s.vocab);
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
        heed::train::update(*model, *optimizer, params, batch, options, 5.0, 1e-3f, dropout_rng);
    if (!result.applied) throw heed::DataError("the loss is not finite");
  };
  for (int64_t i = 0; i < s.warmup; ++i) one_update();
  const heed::bench::PhaseTimes ms = heed::bench::time_phases(s.repeats, double(s.steps), 1e3, [&] {
    for (int64_t i = 0; i < s.steps; ++i) one_update();
  });

  const heed::bench::UpdateFlops flops =
      heed::bench::update_flops(model->config(), model->attention(), s.batch, s.length, s.length);
  std::array<double, heed::profile::kPhases> phase_flops{};
  phase_flops[size_t(Phase::kEncoder)] = flops.encoder;
  phase_flops[size_t(Phase::kDecoderRnn)] = flops.decoder_rnn;
  phase_flops[size_t(Phase::kAttention)] = flops.attention;
  phase_flops[size_t(Phase::kOutput)] = flops.output;

  heed::bench::print_machine(machine, s);
  std::printf("# model: %s, bi-LSTM %d+%d, LSTM %d %s, embed %d, vocab %d, %lld parameters\n",
              model->attention().name().c_str(), s.hidden / 2, s.hidden / 2, s.hidden,
              s.decoder == heed::model::DecoderType::kLuong
                  ? "with input feeding"
                  : ("(" + heed::model::to_string(s.decoder) + " decoder)").c_str(),
              s.embed, s.vocab, static_cast<long long>(model->parameters().numel()));
  std::printf(
      "# update: batch %lld, source %lld, target %lld steps, %s, %d threads; median of %lld "
      "repeats of %lld updates after %lld\n",
      static_cast<long long>(s.batch), static_cast<long long>(s.length),
      static_cast<long long>(s.length), heed::onednn::precision_name(s.precision), s.threads,
      static_cast<long long>(s.repeats), static_cast<long long>(s.steps),
      static_cast<long long>(s.warmup));
  std::printf("phase\tms\tshare\tgflop\tgflops\tpeak_fraction\n");
  const double peak = machine.peak_gflops;
  auto row = [&](const char* name, double time, double gflop) {
    if (gflop > 0) {
      const double rate = gflop / (time * 1e-3);
      std::printf("%s\t%.2f\t%.3f\t%.3f\t%.1f\t%.3f\n", name, time, time / ms.total, gflop, rate,
                  peak > 0 ? rate / peak : 0.0);
    } else {
      std::printf("%s\t%.2f\t%.3f\t0\t-\t-\n", name, time, time / ms.total);
    }
  };
  for (size_t p = 0; p < heed::profile::kPhases; ++p) {
    row(heed::profile::phase_name(Phase(p)), ms.phase[p], phase_flops[p] * 1e-9);
  }
  row("other", ms.other, 0);
  row("update", ms.total, flops.total() * 1e-9);
  const double tokens = double(s.batch * s.length);
  std::printf("# target tokens per second: %.0f\n", tokens / (ms.total * 1e-3));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return heed::cli::run_tool(argc, argv, info(), run);
}
