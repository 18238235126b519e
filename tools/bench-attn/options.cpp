#include "bench-attn/options.h"

#include <unistd.h>

#include <vector>

#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"

namespace heed::bench_attn {
namespace {

// The options of the timing grid, which --stats does not read (--source-length it does).
const char* const kTimingOptions[] = {"attention", "batch",     "target-length", "hidden",
                                      "heads",     "window",    "threads",       "precision",
                                      "mode",      "pass",      "precompute",    "warmup",
                                      "repeats",   "peak-size", "peak-repeats",  "plot"};
const char* const kStatsOptions[] = {"dims", "samples", "input"};

// A list option: its text, checked as it is parsed (so a config file's line is named).
template <class Parse>
cli::Value list(std::string* text, Parse parse) {
  return cli::checked(text, [parse](const std::string& value) { parse(value); });
}

template <class T, class Parse>
std::vector<T> words(const std::string& text, Parse parse) {
  std::vector<T> values;
  for (const std::string& word : split(text, ",")) values.push_back(parse(word));
  return values;
}

std::vector<std::string> mechanism_names(const std::string& list) {
  std::vector<std::string> names = split(list, ",");
  for (const auto& name : names) attention::canonical_attention_name(name);
  return names;
}

std::vector<int64_t> thread_counts(const std::string& list) {
  return parse_int_list("threads", list, 0);
}

std::vector<onednn::Precision> precisions(const std::string& list) {
  return words<onednn::Precision>(list, onednn::parse_precision);
}

std::vector<BenchMode> modes(const std::string& list) {
  return words<BenchMode>(list, parse_bench_mode);
}

std::vector<BenchPass> passes(const std::string& list) {
  return words<BenchPass>(list, parse_bench_pass);
}

std::vector<bool> precompute(const std::string& list) {
  return words<bool>(list, [](const std::string& w) { return parse_on_off("precompute", w); });
}

std::vector<StatsInput> stats_inputs(const std::string& list) {
  return words<StatsInput>(list, parse_stats_input);
}

}  // namespace

cli::ToolInfo tool_info() {
  return {"bench-attn",
          "[options]",
          "Times every registered attention mechanism (or --attention a,b,c) on random inputs "
          "over a grid of shapes: prepare, forward and backward of one batch, all target steps at "
          "once or one step at a time. Prints the median, p10 and p90 times, GFLOP/s, the "
          "fraction of this machine's matmul peak (measured at start), the bytes of the working "
          "buffers and the growth exponent of time in the source length. Lists are comma "
          "separated; integers also take FIRST:LAST:xFACTOR and FIRST:LAST:+STEP. With --stats, "
          "instead: the entropy, largest weight and gradient norms of unscaled and scaled "
          "dot-product attention weights on random inputs of growing width (Vaswani et al.'s "
          "footnote 4, measured).",
          LogLevel::kInfo,
          1,
          {},
          /*own_threads_option=*/true};
}

void add_options(cli::CommandLine& cl, BenchCliConfig& cfg) {
  BenchCliConfig::Lists& l = cfg.lists;
  BenchGrid& grid = cfg.grid;
  const auto sizes = [](const char* option) {
    return [option](const std::string& v) { return parse_int_list(option, v); };
  };
  // clang-format off
  cl.group("Grid")
      ("attention",     list(&l.mechanisms, mechanism_names),
                        "mechanisms (default: every registered one)")
      ("batch",         list(&l.batch, sizes("batch")), "sentences per batch N")
      ("source-length", list(&l.source, sizes("source-length")), "source lengths S")
      ("target-length", list(&l.target, sizes("target-length")),
                        "target lengths T (queries per batch)")
      ("hidden",        list(&l.hidden, sizes("hidden")),
                        "query, key and attention sizes Q = K = A")
      ("heads",         list(&l.heads, sizes("heads")), "heads (mechanisms with --heads)")
      ("window",        list(&l.window, sizes("window")),
                        "half window D (mechanisms with --window)")
      ("threads",       list(&l.threads, thread_counts), "oneDNN thread counts (0 = all cores)")
      ("precision",     list(&l.precision, precisions), "f32, bf16")
      ("mode",          list(&l.mode, modes),
                        "all-steps (every target step in one call), step (one call per step)")
      ("pass",          list(&l.pass, passes), "forward, forward-backward")
      ("precompute",    list(&l.precompute, precompute),
                        "on, off: the key-side precomputation once per batch, or again at every "
                        "step (step mode, mechanisms that have one)");
  cl.group("Measurement")
      ("warmup",        cli::number(&grid.warmup, cli::at_least(0)), "untimed runs per point")
      ("repeats",       cli::number(&grid.repeats, cli::at_least(1)), "timed runs per point")
      ("peak-size",     cli::number(&cfg.peak_size, cli::at_least(0)),
                        "size of the square GEMMs that measure the matmul peak (0 = do not "
                        "measure)")
      ("peak-repeats",  cli::number(&cfg.peak_repeats, cli::at_least(1)),
                        "timed GEMMs per precision and thread count (the best counts)")
      ("format",        list(&l.format, parse_bench_format),
                        "table, tsv or json (default: table on a terminal, tsv otherwise)")
      ("plot",          cli::text(&cfg.plot),
                        "also draw the median time against the source length on log-log axes, "
                        "one line per mechanism and configuration, into this SVG file");
  cl.group("Statistics (--stats)")
      ("stats",         cli::flag(&cfg.stats),
                        "instead of timing: weight entropy, largest weight and gradient norms of "
                        "dot and scaled-dot on random inputs of each width (one --source-length, "
                        "default 50)")
      ("dims",          list(&l.dims, sizes("dims")), "widths d of the queries and keys")
      ("samples",       cli::number(&cfg.stats_config.samples, cli::at_least(1)),
                        "queries (each with its own keys) per width and input")
      ("input",         list(&l.inputs, stats_inputs),
                        "normal (N(0,1) components), tanh (tanh of N(0,1): bounded like RNN "
                        "outputs)");
  // clang-format on
}

bool parse_options(int argc, char** argv, BenchCliConfig& cfg) {
  cli::CommandLine cl(tool_info());
  add_options(cl, cfg);
  if (!cl.parse(argc, argv)) return false;
  const BenchCliConfig::Lists& l = cfg.lists;
  BenchGrid& grid = cfg.grid;
  cfg.stats_config.seed = cl.common().seed;
  if (cfg.stats) {
    for (const char* option : kTimingOptions) {
      if (cl.given(option)) {
        throw ConfigError(std::string("--") + option +
                          " belongs to the timing grid, not to --stats");
      }
    }
    if (cl.given("source-length")) {
      const std::vector<int64_t> lengths = parse_int_list("source-length", l.source);
      if (lengths.size() != 1) throw ConfigError("--stats takes one --source-length");
      cfg.stats_config.source_length = lengths.front();
    }
    cfg.stats_config.dims = parse_int_list("dims", l.dims);
    cfg.stats_config.inputs = stats_inputs(l.inputs);
  } else {
    if (cfg.plot == "-") throw ConfigError("--plot takes a file name: stdout holds the report");
    for (const char* option : kStatsOptions) {
      if (cl.given(option)) throw ConfigError(std::string("--") + option + " needs --stats");
    }
  }
  if (!l.mechanisms.empty()) grid.mechanisms = split(l.mechanisms, ",");
  grid.batch = parse_int_list("batch", l.batch);
  grid.source_lengths = parse_int_list("source-length", l.source);
  grid.target_lengths = parse_int_list("target-length", l.target);
  grid.hidden = parse_int_list("hidden", l.hidden);
  grid.heads = parse_int_list("heads", l.heads);
  grid.windows = parse_int_list("window", l.window);
  grid.threads = thread_counts(l.threads);
  for (const int64_t t : grid.threads) {
    if (t > cli::kMaxThreads) {
      throw ConfigError("--threads " + std::to_string(t) + ": at most " +
                        std::to_string(cli::kMaxThreads));
    }
  }
  grid.precisions = precisions(l.precision);
  grid.modes = modes(l.mode);
  grid.passes = passes(l.pass);
  grid.precompute = precompute(l.precompute);
  grid.seed = cl.common().seed;
  cfg.format = !l.format.empty()       ? parse_bench_format(l.format)
               : isatty(STDOUT_FILENO) ? BenchFormat::kTable
                                       : BenchFormat::kTsv;
  return true;
}

}  // namespace heed::bench_attn
