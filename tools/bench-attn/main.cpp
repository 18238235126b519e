// heed-bench-attn: what each attention mechanism costs on this machine, against the machine's
// own matmul peak (issue 16). Parses the grid and hands it to grid.h, run.h and report.h.
#include <spdlog/spdlog.h>

#include <sstream>
#include <string>
#include <vector>

#include "bench-attn/options.h"
#include "common/progress.h"
#include "common/run.h"
#include "heed/common/memory.h"
#include "heed/io/line_writer.h"
#include "heed/onednn/context.h"
#include "plot.h"
#include "report.h"
#include "saturation.h"

namespace {

using namespace heed;
using bench_attn::BenchCliConfig;

void write_stdout(const std::string& text) {
  io::LineWriter out("-");
  out.write(text);
  out.commit();
}

int bench_attn_main(int argc, char** argv) {
  BenchCliConfig cfg;
  if (!bench_attn::parse_options(argc, argv, cfg)) return 0;
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
    // Three n × n matrices in f32 and three in bf16.
    check_fits_in_memory(18.0 * double(cfg.peak_size) * double(cfg.peak_size),
                         "--peak-size " + std::to_string(cfg.peak_size) + ": the matmul");
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
