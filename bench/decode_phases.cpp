// heed_bench_decode_phases: where a decoding step spends its time, phase by phase — the
// decoding counterpart of train_phases.cpp, for the cases of bench/translate_speed.sh (greedy
// with batches of 64, beam 5 with batch 1). Not a test: it asserts nothing about time.
//
//   heed_bench_decode_phases [--precision f32|bf16] [--threads n] [--beam B] [--batch N]
//                            [--sentences S] [--length L] [--steps K] [--vocab V] [--hidden H]
//                            [--embed E] [--attention NAME] [--repeats R] [--peak-size P]
//
// The model of train_phases.cpp (bi-LSTM H/2 + H/2, LSTM H with input feeding, Luong general
// attention, embeddings E, vocabularies V) with its random initial weights; S random source
// sentences of L tokens, decoded N at a time with beam B for exactly K steps each (minimum and
// maximum length K, as translate_speed.sh makes both sides do). Phases (profile.h, exclusive
// wall time): encoder (and the decoder's start: bridge, key precomputation), decoder_rnn
// (embedding, beam reordering, the LSTM step), attention (the mechanism and the attentional
// layer), output (projection and log-softmax), other (the search: top-k, hypotheses).
// Output: "# " lines, then TSV rows phase, us_per_step, share, gflop_per_step, gflops,
// peak_fraction — the median over R repeats; a step is one decoder step of one batch.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_args.h"
#include "heed/common/error.h"
#include "heed/common/profile.h"
#include "heed/common/stats.h"
#include "heed/decode/model_scorer.h"
#include "heed/model/batch.h"
#include "heed/model/seq2seq.h"
#include "heed/onednn/context.h"
#include "heed/onednn/matmul_peak.h"
#include "heed/text/vocab.h"

namespace {

using heed::profile::Phase;

struct Settings : heed::bench::ModelOptions {
  int beam = 5;
  int64_t batch = 1;
  int64_t sentences = 20;
  int64_t length = 20;
  int64_t steps = 25;
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
    if (flag == "--beam") {
      s.beam = int(parse_count(flag, value));
    } else if (flag == "--batch") {
      s.batch = parse_count(flag, value);
    } else if (flag == "--sentences") {
      s.sentences = parse_count(flag, value);
    } else if (flag == "--length") {
      s.length = parse_count(flag, value);
    } else if (flag == "--steps") {
      s.steps = parse_count(flag, value);
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

  std::mt19937 rng(11);
  std::uniform_int_distribution<int32_t> word(heed::text::Vocab::kEosId + 1, s.vocab - 1);
  std::vector<heed::model::Example> examples(size_t(s.sentences));
  for (auto& e : examples) {
    for (int64_t i = 0; i < s.length; ++i) e.src.push_back(word(rng));
  }
  std::vector<heed::model::Batch> batches;
  for (int64_t first = 0; first < s.sentences; first += s.batch) {
    std::vector<size_t> plan;
    for (int64_t i = first; i < std::min(first + s.batch, s.sentences); ++i)
      plan.push_back(size_t(i));
    batches.push_back(heed::model::make_batch(examples, plan));
  }
  heed::decode::DecodeConfig decode;
  decode.beam_size = s.beam;
  decode.min_length = int(s.steps);
  decode.max_length_ratio = 0.001f;
  decode.max_length_offset = int(s.steps);
  decode.validate();
  const std::unique_ptr<heed::decode::SearchStrategy> search = heed::decode::make_search(decode);
  auto translate_all = [&] {
    for (const auto& batch : batches) heed::decode::translate_batch(model, batch, decode, *search);
  };
  translate_all();  // warm-up: primitives created, weights packed

  heed::profile::set_enabled(true);
  const double steps = double(batches.size()) * double(s.steps);
  std::array<std::vector<double>, heed::profile::kPhases> phase_us;
  std::vector<double> step_us, other_us;
  for (int64_t r = 0; r < s.repeats; ++r) {
    heed::profile::reset();
    const auto start = std::chrono::steady_clock::now();
    translate_all();
    const double total =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count() /
        steps;
    const auto seconds = heed::profile::seconds();
    double covered = 0;
    for (size_t p = 0; p < heed::profile::kPhases; ++p) {
      phase_us[p].push_back(1e6 * seconds[p] / steps);
      covered += phase_us[p].back();
    }
    step_us.push_back(total);
    other_us.push_back(total - covered);
  }

  // FLOPs of one step of R rows, as a GEMM counts them: the LSTM step (input E + H with input
  // feeding, state H), general attention over L positions (scores and context; W_a h_s is
  // precomputed with the encoder), the attentional layer [K + H] → H, the projection H → V.
  // The encoder's are spread over the steps of its batch.
  const double rows = double(s.batch) * double(s.beam);
  const double h = s.hidden, e = s.embed, v = s.vocab, l = double(s.length);
  std::array<double, heed::profile::kPhases> phase_flops{};
  phase_flops[size_t(Phase::kDecoderRnn)] = 2 * rows * 4 * h * (e + h + h);
  phase_flops[size_t(Phase::kAttention)] = 2 * rows * l * (h + h) + 2 * rows * h * (h + h);
  phase_flops[size_t(Phase::kOutput)] = 2 * rows * h * v;
  const double encoder_per_sentence =
      2 * l * 4 * (h / 2) * (e + h / 2) * 2 + 2 * l * h * h;  // both directions, W_a h_s
  phase_flops[size_t(Phase::kEncoder)] = encoder_per_sentence * double(s.batch) / double(s.steps);

  std::printf("# cpu: %s\n# isa: %s\n# onednn: %s\n", backend.cpu_model.c_str(),
              backend.isa.c_str(), backend.onednn_version.c_str());
  std::printf("# matmul_peak_gflops: f32=%.1f bf16=%.1f (%lld², best of 3, %d threads)\n",
              peak.f32_gflops, peak.bf16_gflops, static_cast<long long>(s.peak_size), s.threads);
  std::printf("# model: %s, bi-LSTM %d+%d, LSTM %d with input feeding, embed %d, vocab %d\n",
              s.attention.c_str(), s.hidden / 2, s.hidden / 2, s.hidden, s.embed, s.vocab);
  std::printf(
      "# decoding: beam %d, batch %lld, %lld sentences of %lld tokens, %lld steps each, %s, %d "
      "threads; median of %lld repeats\n",
      s.beam, static_cast<long long>(s.batch), static_cast<long long>(s.sentences),
      static_cast<long long>(s.length), static_cast<long long>(s.steps), s.precision.c_str(),
      s.threads, static_cast<long long>(s.repeats));
  std::printf("phase\tus_per_step\tshare\tgflop_per_step\tgflops\tpeak_fraction\n");
  const double step = median(step_us);
  auto row = [&](const char* name, double us, double flop) {
    const double gflops = us > 0 ? flop / (us * 1e3) : 0;
    std::printf("%s\t%.1f\t%.3f\t%.5f\t%.1f\t%.3f\n", name, us, us / step, flop / 1e9, gflops,
                gflops / peak_gflops);
  };
  double all_flops = 0;
  for (size_t p = 0; p < heed::profile::kPhases; ++p) {
    const auto phase = static_cast<Phase>(p);
    if (phase == Phase::kBatching || phase == Phase::kOptimizer) continue;
    row(heed::profile::phase_name(phase), median(phase_us[p]), phase_flops[p]);
    all_flops += phase_flops[p];
  }
  row("other", median(other_us), 0);
  row("step", step, all_flops);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "heed_bench_decode_phases: error: %s\n", e.what());
    return 64;
  }
}
