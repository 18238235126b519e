// The process-wide oneDNN context: one CPU engine and one stream, created on first use and
// shared by every onednn object; the thread count; and a report of what runs where.
#pragma once

#include <string>

#include "heed/onednn/precision.h"

namespace heed::onednn {

struct BackendInfo {
  std::string onednn_version;  // "2.6.3"
  std::string cpu_runtime;     // "OpenMP" (Debian's build) or "sequential", "TBB", ...
  std::string isa;        // ISA oneDNN dispatches to: "avx512_core_bf16", "avx512_core_amx", ...
  std::string cpu_model;  // "model name" from /proc/cpuinfo ("unknown" if absent)
  int threads = 1;        // OpenMP threads oneDNN will use
  bool bf16 = false;      // bf16_supported()

  // "onednn=2.6.3 runtime=OpenMP isa=avx512_core_bf16 cpu='AMD EPYC' threads=2 bf16=yes".
  std::string summary() const;
};

// Sets the number of threads of every later oneDNN call (omp_set_num_threads: Debian's oneDNN
// uses OpenMP and has no thread API of its own). Throws ConfigError unless n >= 1.
void set_threads(int n);
// The current OpenMP thread count (omp_get_max_threads()).
int threads();

// Whether this CPU and oneDNN build run bf16 matmuls, decided by asking oneDNN for a bf16
// primitive (never from CPU flags). Cached after the first call.
bool bf16_supported();
// Throws ConfigError naming `what` if precision is kBF16 and bf16 is not supported.
void require_precision(Precision precision, const std::string& what);

BackendInfo backend_info();
// Logs backend_info().summary() at info level with the [onednn] tag.
void log_backend_info();

}  // namespace heed::onednn
