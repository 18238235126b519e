// What the benchmark programs of bench/ share (not installed; docs/benchmarks.md): their options
// on the tools' option parser (tools/common/options.h: --help, --print-config, --config, range
// checks and messages as every heed tool gives them), the model of train_speed.sh and
// translate_speed.sh that the phase benchmarks build, the machine's figures they print first,
// and the timing of profiled phases (heed/common/profile.h) over repeats, as medians.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/options.h"
#include "heed/common/profile.h"
#include "heed/model/seq2seq.h"
#include "heed/onednn/context.h"
#include "heed/onednn/matmul_peak.h"
#include "heed/onednn/precision.h"

namespace heed::bench {

// The options the phase benchmarks share: the model, its precision, the threads, the repeats and
// the size of the matmul-peak measurement.
struct ModelOptions {
  onednn::Precision precision = onednn::Precision::kF32;
  int threads = 2;
  int vocab = 8000;
  int hidden = 512;
  int embed = 256;
  std::string attention = "general";  // checked as given; the model's config resolves it
  // The arrangement around the attention: Luong's (the PyTorch peer's), or Bahdanau's (the one
  // nearest Marian's s2s, heed-marian-like in bench/peers/marian/systems.yaml); an option of
  // train_phases only (decode_phases counts Luong's FLOPs).
  model::DecoderType decoder = model::DecoderType::kLuong;
  int64_t repeats = 5;
  int64_t peak_size = 2048;
};

// A bench program's command line: its name (the binary, heed_bench_<name> with '-' as '_'), its
// synopsis and description for --help. --threads is the program's own (ModelOptions::threads).
cli::ToolInfo bench_info(const std::string& name, const std::string& synopsis,
                         const std::string& description);
// A phase benchmark's command line: ModelOptions' options and those add_own declares; false
// when the program is done (--help, --version, --print-config).
bool parse_options(int argc, char** argv, const cli::ToolInfo& info, ModelOptions& options,
                   const std::function<void(cli::CommandLine&)>& add_own);

// bi-LSTM encoder hidden/2 + hidden/2, LSTM decoder (options' arrangement: Luong's with input
// feeding by default), options' attention, no dropout (the PyTorch peer's model has none), in
// options' precision, its parameters uniform from seed 7.
std::unique_ptr<model::Seq2Seq> make_model(const ModelOptions& options);
// length random target-vocabulary word ids (past the specials) of a model of vocab words.
std::vector<int32_t> random_words(std::mt19937& rng, int64_t length, int vocab);

// The machine as the figures need it: the backend (after setting options' threads) and its
// matmul peak (best of 3 at options.peak_size), in options' precision.
struct Machine {
  onednn::BackendInfo backend;
  onednn::MatmulPeak peak;
  double peak_gflops = 0;  // of options' precision
};
Machine measure_machine(const ModelOptions& options);
// Its "# cpu", "# isa", "# onednn" and "# matmul_peak_gflops" lines.
void print_machine(const Machine& machine, const ModelOptions& options);

// Per unit of work (an update, a decoder step), the median over repeats of each profiled phase's
// exclusive time, of the time outside every phase ("other") and of the whole, in seconds ×
// scale (1e3: ms, 1e6: µs).
struct PhaseTimes {
  std::array<double, profile::kPhases> phase{};
  double other = 0;
  double total = 0;
};
// Runs work (units units of work each time) repeats times with profiling on.
PhaseTimes time_phases(int64_t repeats, double units, double scale,
                       const std::function<void()>& work);

}  // namespace heed::bench
