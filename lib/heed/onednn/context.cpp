#include "heed/onednn/context.h"

#include <omp.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "heed/common/error.h"
#include "heed/onednn/internal.h"

namespace heed::onednn {
namespace {

std::string read_cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        const size_t begin = line.find_first_not_of(" \t", colon + 1);
        if (begin != std::string::npos) return line.substr(begin);
      }
    }
  }
  return "unknown";
}

std::string runtime_name(unsigned runtime) {
  switch (runtime) {
    case DNNL_RUNTIME_OMP:
      return "OpenMP";
    case DNNL_RUNTIME_SEQ:
      return "sequential";
    case DNNL_RUNTIME_TBB:
      return "TBB";
    case DNNL_RUNTIME_THREADPOOL:
      return "threadpool";
    default:
      return "other(" + std::to_string(runtime) + ")";
  }
}

bool probe_bf16() {
  using dnnl::memory;
  // A tiny bf16 matmul; an empty primitive descriptor means no implementation on this CPU.
  const memory::desc a({16, 32}, memory::data_type::bf16, memory::format_tag::ab);
  const memory::desc b({32, 16}, memory::data_type::bf16, memory::format_tag::any);
  const memory::desc c({16, 16}, memory::data_type::f32, memory::format_tag::ab);
  try {
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), detail::engine(), true);
    return static_cast<bool>(pd);
  } catch (const dnnl::error&) {
    return false;
  }
}

}  // namespace

namespace detail {

dnnl::engine& engine() {
  static dnnl::engine instance =
      guarded("engine creation", [] { return dnnl::engine(dnnl::engine::kind::cpu, 0); });
  return instance;
}

dnnl::stream& stream() {
  // One per thread: a thread that runs oneDNN primitives of its own inside a parallel region
  // (the encoder's two directions at once, Encoder::run_directions) must not share a stream.
  thread_local dnnl::stream instance =
      guarded("stream creation", [] { return dnnl::stream(engine()); });
  return instance;
}

std::string isa_name(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::sse41:
      return "sse41";
    case dnnl::cpu_isa::avx:
      return "avx";
    case dnnl::cpu_isa::avx2:
      return "avx2";
    case dnnl::cpu_isa::avx2_vnni:
      return "avx2_vnni";
    case dnnl::cpu_isa::avx512_mic:
      return "avx512_mic";
    case dnnl::cpu_isa::avx512_mic_4ops:
      return "avx512_mic_4ops";
    case dnnl::cpu_isa::avx512_core:
      return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx:
      return "avx512_core_amx";
    case dnnl::cpu_isa::all:
      return "all";
  }
  return "unknown(" + std::to_string(static_cast<int>(isa)) + ")";
}

}  // namespace detail

std::string BackendInfo::summary() const {
  return "onednn=" + onednn_version + " runtime=" + cpu_runtime + " isa=" + isa + " cpu='" +
         cpu_model + "' threads=" + std::to_string(threads) + " bf16=" + (bf16 ? "yes" : "no");
}

void set_threads(int n) {
  if (n < 1) throw ConfigError("thread count must be at least 1, got " + std::to_string(n));
  omp_set_num_threads(n);
}

int threads() {
  return omp_get_max_threads();
}

bool bf16_supported() {
  static const bool supported = probe_bf16();
  return supported;
}

void require_precision(Precision precision, const std::string& what) {
  if (precision == Precision::kBF16 && !bf16_supported()) {
    throw ConfigError(what + ": bf16 is not supported by oneDNN on this CPU (isa=" +
                      detail::isa_name(dnnl::get_effective_cpu_isa()) + "); use f32 precision");
  }
}

BackendInfo backend_info() {
  BackendInfo info;
  const dnnl_version_t* v = dnnl::version();
  info.onednn_version =
      std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
  info.cpu_runtime = runtime_name(v->cpu_runtime);
  info.isa = detail::isa_name(dnnl::get_effective_cpu_isa());
  info.cpu_model = read_cpu_model();
  info.threads = threads();
  info.bf16 = bf16_supported();
  return info;
}

void log_backend_info() {
  spdlog::info("[onednn] {}", backend_info().summary());
}

}  // namespace heed::onednn
