#include "phases.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "common/shared_options.h"
#include "heed/attention/registry.h"
#include "heed/common/stats.h"
#include "heed/common/strings.h"
#include "heed/text/vocab.h"

namespace heed::bench {

cli::ToolInfo bench_info(const std::string& name, const std::string& synopsis,
                         const std::string& description) {
  cli::ToolInfo info;
  info.name = "bench-" + name;
  std::string program = "heed_bench_" + name;
  std::replace(program.begin(), program.end(), '-', '_');
  info.program = program;
  info.synopsis = synopsis;
  info.description = description;
  info.own_threads_option = true;
  return info;
}

bool parse_options(int argc, char** argv, const cli::ToolInfo& info, ModelOptions& options,
                   const std::function<void(cli::CommandLine&)>& add_own) {
  cli::CommandLine cl(info);
  const cli::Bounds count = cli::at_least(1);
  // clang-format off
  cl.group("Model")
      ("attention",  cli::checked(&options.attention, attention::canonical_attention_name),
                     "attention mechanism: " + join(attention::attention_names(), ", "))
      ("hidden",     cli::number(&options.hidden, count), "decoder state and encoder output size")
      ("embed",      cli::number(&options.embed, count), "embedding size")
      ("vocab",      cli::number(&options.vocab, cli::at_least(5)),
                     "source and target vocabulary size (the 4 specials included)");
  cli::add_precision_option(cl.group("Measurement"), &options.precision);
  cl.group("Measurement")
      ("threads",    cli::number(&options.threads, cli::between(1, cli::kMaxThreads)),
                     "threads of oneDNN and OpenMP")
      ("repeats",    cli::number(&options.repeats, count),
                     "timed repeats; each figure is their median")
      ("peak-size",  cli::number(&options.peak_size, count),
                     "the matmul peak's square matrices are this wide");
  // clang-format on
  add_own(cl);
  return cl.parse(argc, argv);
}

std::unique_ptr<model::Seq2Seq> make_model(const ModelOptions& options) {
  cli::check_precision_supported(options.precision);
  model::ModelConfig config;
  config.attention = options.attention;
  config.decoder = options.decoder;
  config.hidden = options.hidden;
  config.embed = options.embed;
  config.dropout = 0.f;
  config.src_vocab_size = options.vocab;
  config.tgt_vocab_size = options.vocab;
  auto model = std::make_unique<model::Seq2Seq>(config, options.precision);
  model->initialize(7);
  return model;
}

std::vector<int32_t> random_words(std::mt19937& rng, int64_t length, int vocab) {
  std::uniform_int_distribution<int32_t> word(text::Vocab::kEosId + 1, vocab - 1);
  std::vector<int32_t> words(size_t(std::max<int64_t>(length, 0)));
  for (int32_t& w : words) w = word(rng);
  return words;
}

Machine measure_machine(const ModelOptions& options) {
  onednn::set_threads(options.threads);
  Machine machine;
  machine.backend = onednn::backend_info();
  machine.peak = onednn::measure_matmul_peak(options.peak_size, options.threads, 3);
  machine.peak_gflops = options.precision == onednn::Precision::kBF16 ? machine.peak.bf16_gflops
                                                                      : machine.peak.f32_gflops;
  return machine;
}

void print_machine(const Machine& machine, const ModelOptions& options) {
  std::printf("# cpu: %s\n# isa: %s\n# onednn: %s\n", machine.backend.cpu_model.c_str(),
              machine.backend.isa.c_str(), machine.backend.onednn_version.c_str());
  std::printf("# matmul_peak_gflops: f32=%.1f bf16=%.1f (%lld², best of 3, %d threads)\n",
              machine.peak.f32_gflops, machine.peak.bf16_gflops,
              static_cast<long long>(options.peak_size), options.threads);
}

PhaseTimes time_phases(int64_t repeats, double units, double scale,
                       const std::function<void()>& work) {
  profile::set_enabled(true);
  std::array<std::vector<double>, profile::kPhases> phase;
  std::vector<double> total, other;
  for (int64_t r = 0; r < repeats; ++r) {
    profile::reset();
    const auto start = std::chrono::steady_clock::now();
    work();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto phases = profile::seconds();
    double covered = 0;
    for (size_t p = 0; p < profile::kPhases; ++p) {
      phase[p].push_back(scale * phases[p] / units);
      covered += phase[p].back();
    }
    total.push_back(scale * seconds / units);
    other.push_back(total.back() - covered);
  }
  PhaseTimes times;
  for (size_t p = 0; p < profile::kPhases; ++p) times.phase[p] = median(phase[p]);
  times.other = median(other);
  times.total = median(total);
  return times;
}

}  // namespace heed::bench
