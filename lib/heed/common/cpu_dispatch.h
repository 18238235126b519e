// Kernels compiled once per ISA and picked at run time. heed is never built for one machine (no
// -march=native): a kernel file instantiates its body inside functions marked HEED_TARGET_AVX512
// and HEED_TARGET_AVX2 and once without, and calls the one cpu_level() picks (from
// __builtin_cpu_supports). GCC's target_clones cannot ask for AVX-512F and FMA together in one
// clone, hence the hand-made table. Bodies are HEED_INLINE so that each target gets its own copy.
#pragma once

namespace heed {

#define HEED_INLINE inline __attribute__((always_inline))
// The two targets a kernel file compiles its bodies for, besides the baseline.
#define HEED_TARGET_AVX512 __attribute__((target("avx512f,fma,prefer-vector-width=512")))
#define HEED_TARGET_AVX2 __attribute__((target("avx2,fma")))

// Which build of a kernel this CPU runs, the index into a kernel file's table of variants.
enum CpuLevel { kAvx512, kAvx2, kBaseline };

inline CpuLevel cpu_level() {
  static const CpuLevel level = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma")) return kAvx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return kAvx2;
    return kBaseline;
  }();
  return level;
}

// "avx512f", "avx2" or "default".
inline const char* cpu_level_name() {
  static const char* const names[] = {"avx512f", "avx2", "default"};
  return names[cpu_level()];
}

}  // namespace heed
