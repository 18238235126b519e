// heed-bench-attn's report: the machine (its matmul peak), one row per timed point, and the
// growth exponent of time in the source length per group of points.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "common/table.h"
#include "heed/onednn/matmul_peak.h"
#include "run.h"

namespace heed::bench_attn {

// The least-squares slope of log y on log x (NaN with fewer than two distinct x).
double log_log_slope(const std::vector<double>& x, const std::vector<double>& y);

// Growth of time in the source length: one fit per group of points equal in everything but S.
struct GrowthFit {
  BenchPoint point;  // the group (its source_length is meaningless)
  double exponent = 0;
  int64_t points = 0;
};
std::vector<GrowthFit> growth_exponents(const std::vector<BenchResult>& results);

// What the report names about the machine.
struct BenchMachine {
  std::string cpu_model, isa, onednn_version;
  int64_t peak_size = 0;                       // 0: the peak was not measured
  std::map<int64_t, onednn::MatmulPeak> peak;  // by thread count
};

// The report on out: a table (aligned columns), TSV (machine and growth as "# " comment lines
// around the header and rows) or JSON ({"machine", "results", "growth"}). Column names are
// those of bench_columns().
const std::vector<std::string>& bench_columns();
void write_bench_report(std::ostream& out, BenchFormat format, const BenchMachine& machine,
                        const std::vector<BenchResult>& results);

// The reports (saturation.h, plot.h) format numbers and align columns with tools/common/table.h.
using cli::format_number;
using cli::write_aligned;

}  // namespace heed::bench_attn
