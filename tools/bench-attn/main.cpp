// heed-bench-attn: what each attention mechanism costs on this machine, against the machine's
// own matmul peak (issue 16). Parses the grid and hands it to grid.h, run.h and report.h.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <vector>

#include "common/options.h"
#include "common/progress.h"
#include "common/run.h"
#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/io/line_writer.h"
#include "heed/onednn/context.h"
#include "plot.h"
#include "report.h"
#include "saturation.h"

namespace {

using namespace heed;
namespace po = boost::program_options;

struct BenchCliConfig {
  bench_attn::BenchGrid grid;
  bench_attn::BenchFormat format = bench_attn::BenchFormat::kTsv;
  int64_t peak_size = 2048;
  int64_t peak_repeats = 3;
  std::string plot;  // an SVG file to draw time against source length in; empty: none
  bool stats = false;
  bench_attn::StatsConfig stats_config;
};

// The options of the timing grid, which --stats does not read (--source-length it does).
const char* const kTimingOptions[] = {"attention", "batch",     "target-length", "hidden",
                                      "heads",     "window",    "threads",       "precision",
                                      "mode",      "pass",      "precompute",    "warmup",
                                      "repeats",   "peak-size", "peak-repeats",  "plot"};
const char* const kStatsOptions[] = {"dims", "samples", "input"};

// A list option: its text, checked as it is parsed (so a config file's line is named).
template <class Parse>
po::typed_value<std::string>* list(std::string* text, Parse parse) {
  return cli::checked(text, [parse](const std::string& value) { parse(value); });
}

template <class T, class Parse>
std::vector<T> words(const std::string& text, Parse parse) {
  std::vector<T> values;
  for (const std::string& word : split(text, ",")) values.push_back(parse(word));
  return values;
}

bool parse_options(int argc, char** argv, BenchCliConfig& cfg) {
  cli::CommandLine cl({"bench-attn",
                       "[options]",
                       "Times every registered attention mechanism (or --attention a,b,c) on "
                       "random inputs over a grid of shapes: prepare, forward and backward of "
                       "one batch, all target steps at once or one step at a time. Prints "
                       "the median, p10 and p90 times, GFLOP/s, the fraction of this machine's "
                       "matmul peak (measured at start), the bytes of the working buffers and "
                       "the growth exponent of time in the source length. Lists are comma "
                       "separated; integers also take FIRST:LAST:xFACTOR and FIRST:LAST:+STEP. "
                       "With --stats, instead: the entropy, largest weight and gradient norms "
                       "of unscaled and scaled dot-product attention weights on random inputs "
                       "of growing width (Vaswani et al.'s footnote 4, measured).",
                       LogLevel::kInfo,
                       1,
                       {},
                       /*own_threads_option=*/true});
  bench_attn::BenchGrid& grid = cfg.grid;
  std::string mechanisms, batch = "64", source = "10,20,50,100,200,500", target = "50",
                          hidden = "512", heads = "4", window = "10", threads = "0",
                          precision = "f32", mode = "all-steps,step",
                          pass = "forward,forward-backward", precompute = "on", format;
  const auto sizes = [](const char* option) {
    return [option](const std::string& v) { return bench_attn::parse_int_list(option, v); };
  };
  cl.group("Grid").add_options()("attention",
                                 list(&mechanisms,
                                      [](const std::string& v) {
                                        for (const auto& name : split(v, ","))
                                          attention::canonical_attention_name(name);
                                      }),
                                 "mechanisms (default: every registered one)")(
      "batch", list(&batch, sizes("batch")), "sentences per batch N")(
      "source-length", list(&source, sizes("source-length")), "source lengths S")(
      "target-length", list(&target, sizes("target-length")),
      "target lengths T (queries per batch)")("hidden", list(&hidden, sizes("hidden")),
                                              "query, key and attention sizes Q = K = A")(
      "heads", list(&heads, sizes("heads")), "heads (mechanisms with --heads)")(
      "window", list(&window, sizes("window")), "half window D (mechanisms with --window)")(
      "threads",
      list(&threads,
           [](const std::string& v) { return bench_attn::parse_int_list("threads", v, 0); }),
      "oneDNN thread counts (0 = all cores)")(
      "precision",
      list(&precision,
           [](const std::string& v) {
             return words<onednn::Precision>(v, onednn::parse_precision);
           }),
      "f32, bf16")("mode",
                   list(&mode,
                        [](const std::string& v) {
                          return words<bench_attn::BenchMode>(v, bench_attn::parse_bench_mode);
                        }),
                   "all-steps (every target step in one call), step (one call per step)")(
      "pass",
      list(&pass,
           [](const std::string& v) {
             return words<bench_attn::BenchPass>(v, bench_attn::parse_bench_pass);
           }),
      "forward, forward-backward")(
      "precompute",
      list(&precompute,
           [](const std::string& v) {
             return words<bool>(
                 v, [](const std::string& w) { return bench_attn::parse_on_off("precompute", w); });
           }),
      "on, off: the key-side precomputation once per batch, or again at every step (step "
      "mode, mechanisms that have one)");
  cl.group("Measurement")
      .add_options()("warmup", cli::number(&grid.warmup, cli::at_least(0)),
                     "untimed runs per point")(
          "repeats", cli::number(&grid.repeats, cli::at_least(1)), "timed runs per point")(
          "peak-size", cli::number(&cfg.peak_size, cli::at_least(0)),
          "size of the square GEMMs that measure the matmul peak (0 = do not measure)")(
          "peak-repeats", cli::number(&cfg.peak_repeats, cli::at_least(1)),
          "timed GEMMs per precision and thread count (the best counts)")(
          "format", list(&format, bench_attn::parse_bench_format),
          "table, tsv or json (default: table on a terminal, tsv otherwise)")(
          "plot", po::value(&cfg.plot),
          "also draw the median time against the source length on log-log axes, one line per "
          "mechanism and configuration, into this SVG file");
  std::string dims = "16:4096:x2", inputs = "normal,tanh";
  cl.group("Statistics (--stats)")
      .add_options()("stats", po::bool_switch(&cfg.stats),
                     "instead of timing: weight entropy, largest weight and gradient norms of "
                     "dot and scaled-dot on random inputs of each width (one --source-length, "
                     "default 50)")("dims", list(&dims, sizes("dims")),
                                    "widths d of the queries and keys")(
          "samples", cli::number(&cfg.stats_config.samples, cli::at_least(1)),
          "queries (each with its own keys) per width and input")(
          "input",
          list(&inputs,
               [](const std::string& v) {
                 return words<bench_attn::StatsInput>(v, bench_attn::parse_stats_input);
               }),
          "normal (N(0,1) components), tanh (tanh of N(0,1): bounded like RNN outputs)");
  if (!cl.parse(argc, argv)) return false;
  cfg.stats_config.seed = cl.common().seed;
  if (cfg.stats) {
    for (const char* option : kTimingOptions) {
      if (cl.given(option)) {
        throw ConfigError(std::string("--") + option +
                          " belongs to the timing grid, not to --stats");
      }
    }
    if (cl.given("source-length")) {
      const std::vector<int64_t> lengths = bench_attn::parse_int_list("source-length", source);
      if (lengths.size() != 1) throw ConfigError("--stats takes one --source-length");
      cfg.stats_config.source_length = lengths.front();
    }
    cfg.stats_config.dims = bench_attn::parse_int_list("dims", dims);
    cfg.stats_config.inputs = words<bench_attn::StatsInput>(inputs, bench_attn::parse_stats_input);
  } else {
    if (cfg.plot == "-") throw ConfigError("--plot takes a file name: stdout holds the report");
    for (const char* option : kStatsOptions) {
      if (cl.given(option)) throw ConfigError(std::string("--") + option + " needs --stats");
    }
  }
  if (!mechanisms.empty()) grid.mechanisms = split(mechanisms, ",");
  grid.batch = bench_attn::parse_int_list("batch", batch);
  grid.source_lengths = bench_attn::parse_int_list("source-length", source);
  grid.target_lengths = bench_attn::parse_int_list("target-length", target);
  grid.hidden = bench_attn::parse_int_list("hidden", hidden);
  grid.heads = bench_attn::parse_int_list("heads", heads);
  grid.windows = bench_attn::parse_int_list("window", window);
  grid.threads = bench_attn::parse_int_list("threads", threads, 0);
  for (const int64_t t : grid.threads) {
    if (t > cli::kMaxThreads) {
      throw ConfigError("--threads " + std::to_string(t) + ": at most " +
                        std::to_string(cli::kMaxThreads));
    }
  }
  grid.precisions = words<onednn::Precision>(precision, onednn::parse_precision);
  grid.modes = words<bench_attn::BenchMode>(mode, bench_attn::parse_bench_mode);
  grid.passes = words<bench_attn::BenchPass>(pass, bench_attn::parse_bench_pass);
  grid.precompute = words<bool>(
      precompute, [](const std::string& w) { return bench_attn::parse_on_off("precompute", w); });
  grid.seed = cl.common().seed;
  cfg.format = !format.empty()         ? bench_attn::parse_bench_format(format)
               : isatty(STDOUT_FILENO) ? bench_attn::BenchFormat::kTable
                                       : bench_attn::BenchFormat::kTsv;
  return true;
}

void write_stdout(const std::string& text) {
  io::LineWriter out("-");
  out.write(text);
  out.commit();
}

int bench_attn_main(int argc, char** argv) {
  BenchCliConfig cfg;
  if (!parse_options(argc, argv, cfg)) return 0;
  if (cfg.stats) {
    std::ostringstream report;
    bench_attn::write_stats_report(report, cfg.format,
                                   bench_attn::saturation_stats(cfg.stats_config));
    write_stdout(report.str());
    return 0;
  }
  const std::vector<bench_attn::BenchPoint> points = bench_attn::expand_grid(cfg.grid);
  if (!cfg.plot.empty()) io::check_writable(cfg.plot);  // before the work, not after

  bench_attn::BenchMachine machine;
  const onednn::BackendInfo backend = onednn::backend_info();
  machine.cpu_model = backend.cpu_model;
  machine.isa = backend.isa;
  machine.onednn_version = backend.onednn_version;
  machine.peak_size = cfg.peak_size;
  if (cfg.peak_size > 0) {
    for (const bench_attn::BenchPoint& point : points) {
      if (machine.peak.count(point.threads)) continue;
      const onednn::MatmulPeak peak =
          onednn::measure_matmul_peak(cfg.peak_size, int(point.threads), cfg.peak_repeats);
      machine.peak[point.threads] = peak;
      spdlog::info("[bench] matmul peak threads={} size={} f32={:.1f} GFLOP/s bf16={:.1f} GFLOP/s",
                   point.threads, cfg.peak_size, peak.f32_gflops, peak.bf16_gflops);
    }
  }
  spdlog::info("[bench] cpu='{}' isa={} points={}", machine.cpu_model, machine.isa, points.size());

  std::vector<bench_attn::BenchResult> results;
  cli::Progress bar;
  for (size_t i = 0; i < points.size(); ++i) {
    const bench_attn::BenchPoint& p = points[i];
    const std::string what =
        p.mechanism + " " + bench_attn::to_string(p.mode) + " " + bench_attn::to_string(p.pass) +
        " S=" + std::to_string(p.source_length) + " T=" + std::to_string(p.target_length);
    bar.update(double(i) / double(points.size()),
               std::to_string(i + 1) + "/" + std::to_string(points.size()) + " " + what);
    results.push_back(bench_attn::run_point(p, cfg.grid.warmup, cfg.grid.repeats, cfg.grid.seed));
    spdlog::debug("[bench] {}: median_ms={:.4f}", what, results.back().median_ms);
  }
  bar.clear();

  std::ostringstream report;
  bench_attn::write_bench_report(report, cfg.format, machine, results);
  write_stdout(report.str());
  if (!cfg.plot.empty()) {
    io::write_file_atomically(cfg.plot, bench_attn::bench_plot_svg(results));
    spdlog::info("[bench] plot written to {}", cfg.plot);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return heed::cli::run_tool(argc, argv, "bench-attn", bench_attn_main);
}
