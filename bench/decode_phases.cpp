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
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/run.h"
#include "heed/decode/model_scorer.h"
#include "heed/model/batch.h"
#include "phases.h"

namespace {

using heed::profile::Phase;

struct Settings : heed::bench::ModelOptions {
  int beam = 5;
  int64_t batch = 1;
  int64_t sentences = 20;
  int64_t length = 20;
  int64_t steps = 25;
};

heed::cli::ToolInfo info() {
  return heed::bench::bench_info(
      "decode-phases", "[options]",
      "Times the decoder steps of the benchmark model phase by phase and rates each phase's "
      "FLOPs against this machine's matmul peak (bench/decode_phases.cpp, docs/benchmarks.md).");
}

// The options; false when the program is done (--help, --print-config).
bool parse(int argc, char** argv, Settings& s) {
  return heed::bench::parse_options(argc, argv, info(), s, [&s](heed::cli::CommandLine& cl) {
    using heed::cli::number;
    const heed::cli::Bounds count = heed::cli::at_least(1);
    // clang-format off
    cl.group("Decoding")
        ("beam",       number(&s.beam, heed::cli::between(1, heed::decode::kMaxBeamSize)),
                       "beam size (1 = greedy)")
        ("batch",      number(&s.batch, count), "sentences decoded together")
        ("sentences",  number(&s.sentences, count), "random source sentences")
        ("length",     number(&s.length, count), "tokens of each source sentence")
        ("steps",      number(&s.steps, count), "decoder steps of each sentence");
    // clang-format on
  });
}

int run(int argc, char** argv) {
  Settings s;
  if (!parse(argc, argv, s)) return 0;
  const heed::bench::Machine machine = heed::bench::measure_machine(s);
  const std::unique_ptr<heed::model::Seq2Seq> model = heed::bench::make_model(s);

  std::mt19937 rng(11);
  std::vector<heed::model::Example> examples(size_t(s.sentences));
  for (auto& e : examples) e.src = heed::bench::random_words(rng, s.length, s.vocab);
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
    for (const auto& batch : batches) heed::decode::translate_batch(*model, batch, decode, *search);
  };
  translate_all();  // warm-up: primitives created, weights packed
  const double steps = double(batches.size()) * double(s.steps);
  const heed::bench::PhaseTimes us = heed::bench::time_phases(s.repeats, steps, 1e6, translate_all);

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

  heed::bench::print_machine(machine, s);
  std::printf("# model: %s, bi-LSTM %d+%d, LSTM %d with input feeding, embed %d, vocab %d\n",
              model->attention().name().c_str(), s.hidden / 2, s.hidden / 2, s.hidden, s.embed,
              s.vocab);
  std::printf(
      "# decoding: beam %d, batch %lld, %lld sentences of %lld tokens, %lld steps each, %s, %d "
      "threads; median of %lld repeats\n",
      s.beam, static_cast<long long>(s.batch), static_cast<long long>(s.sentences),
      static_cast<long long>(s.length), static_cast<long long>(s.steps),
      heed::onednn::precision_name(s.precision), s.threads, static_cast<long long>(s.repeats));
  std::printf("phase\tus_per_step\tshare\tgflop_per_step\tgflops\tpeak_fraction\n");
  auto row = [&](const char* name, double time, double flop) {
    const double gflops = time > 0 ? flop / (time * 1e3) : 0;
    std::printf("%s\t%.1f\t%.3f\t%.5f\t%.1f\t%.3f\n", name, time, time / us.total, flop / 1e9,
                gflops, gflops / machine.peak_gflops);
  };
  double all_flops = 0;
  for (size_t p = 0; p < heed::profile::kPhases; ++p) {
    const auto phase = static_cast<Phase>(p);
    if (phase == Phase::kBatching || phase == Phase::kOptimizer) continue;
    row(heed::profile::phase_name(phase), us.phase[p], phase_flops[p]);
    all_flops += phase_flops[p];
  }
  row("other", us.other, 0);
  row("step", us.total, all_flops);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return heed::cli::run_tool(argc, argv, info(), run);
}
