// heed-train's configuration and option table.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "common/options.h"
#include "heed/text/tokenizer.h"
#include "heed/train/trainer.h"

namespace heed::train_tool {

struct TrainCliConfig {
  train::TrainConfig train;
  int threads = 0;
  double mpi_timeout = 300;  // seconds a process waits for the others (under mpirun)

  // As the command line gives them; parse_options resolves them into train.
  int layers = 1;  // --layers: both stacks, unless --encoder-layers/--decoder-layers
  bool unidirectional = false;
  bool no_input_feeding = false;
  std::map<std::string, int64_t> attention_ints;  // the mechanisms' own options, by name
  std::map<std::string, double> attention_reals;
  std::string bpe;  // BPE codes file, stored in the model
  text::TokenizerOptions tokenizer;
};

cli::ToolInfo tool_info();
// Declares heed-train's options on cl, bound to cfg.
void add_options(cli::CommandLine& cl, TrainCliConfig& cfg);
// Parses argv into cfg and checks it; false when the tool must exit 0 at once (--help,
// --version, --print-config).
bool parse_options(int argc, char** argv, TrainCliConfig& cfg);

// heed-train plot METRICS.tsv... [-o FILE]: the --metrics-file of several runs drawn together
// as learning curves (train/curves.h); its own option table, in plot.cpp.
int plot_main(int argc, char** argv);

// A test hook, not an option: HEED_TEST_KILL_AFTER_STEP=N makes heed-train kill itself with
// SIGKILL right after update N, between checkpoints, as a crash or the OOM killer would
// (tests/cli/train_cli.sh resumes from that; train_mpi_dead_rank.sh gives it to one rank). The
// update N, or 0 when the variable is unset; ConfigError unless it is an integer >= 0.
int64_t kill_after_step_from_environment();

}  // namespace heed::train_tool
