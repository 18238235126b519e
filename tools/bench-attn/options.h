// heed-bench-attn's configuration and option table.
#pragma once

#include <cstdint>
#include <string>

#include "bench-attn/grid.h"
#include "bench-attn/saturation.h"
#include "common/options.h"

namespace heed::bench_attn {

struct BenchCliConfig {
  BenchGrid grid;
  BenchFormat format = BenchFormat::kTsv;
  int64_t peak_size = 2048;
  int64_t peak_repeats = 3;
  std::string plot;  // an SVG file to draw time against source length in; empty: none
  bool stats = false;
  StatsConfig stats_config;

  // The lists as the command line gives them (comma separated); parse_options resolves them
  // into grid and stats_config.
  struct Lists {
    std::string mechanisms;  // empty: every registered one
    std::string batch = "64";
    std::string source = "10,20,50,100,200,500";
    std::string target = "50";
    std::string hidden = "512";
    std::string heads = "4";
    std::string window = "10";
    std::string threads = "0";
    std::string precision = "f32";
    std::string mode = "all-steps,step";
    std::string pass = "forward,forward-backward";
    std::string precompute = "on";
    std::string format;  // empty: table on a terminal, tsv otherwise
    std::string dims = "16:4096:x2";
    std::string inputs = "normal,tanh";
  } lists;
};

cli::ToolInfo tool_info();
// Declares heed-bench-attn's options on cl, bound to cfg.
void add_options(cli::CommandLine& cl, BenchCliConfig& cfg);
// Parses argv into cfg and checks it; false when the tool must exit 0 at once (--help,
// --version, --print-config).
bool parse_options(int argc, char** argv, BenchCliConfig& cfg);

}  // namespace heed::bench_attn
