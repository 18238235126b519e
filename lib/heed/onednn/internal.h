// Private helpers shared by lib/heed/onednn/*.cpp. Not part of the API: it uses dnnl types, so
// only those .cpp files may include it, after <oneapi/dnnl/dnnl.hpp> (the include-discipline
// lint allows oneDNN includes in onednn/*.cpp only, hence no include of it here).
#pragma once

#ifndef ONEAPI_DNNL_DNNL_HPP
#error "include <oneapi/dnnl/dnnl.hpp> before heed/onednn/internal.h"
#endif

#include <cstdint>
#include <string>
#include <utility>

#include "heed/onednn/precision.h"
#include "heed/tensor/tensor.h"

namespace heed::onednn::detail {

// The process-wide CPU engine and in-order stream, created on first use.
dnnl::engine& engine();
dnnl::stream& stream();

// Rethrows a dnnl::error as BackendError("<where>: <what>: status N").
[[noreturn]] void rethrow(const std::string& where, const dnnl::error& e);

// Runs body, translating dnnl::error into BackendError naming `where`.
template <class Body>
auto guarded(const char* where, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const dnnl::error& e) {
    rethrow(where, e);
  }
}

inline dnnl::memory::data_type to_dnnl(tensor::DType dtype) {
  return dtype == tensor::DType::kF32 ? dnnl::memory::data_type::f32
                                      : dnnl::memory::data_type::bf16;
}

inline dnnl::memory::data_type to_dnnl(Precision precision) {
  return precision == Precision::kF32 ? dnnl::memory::data_type::f32
                                      : dnnl::memory::data_type::bf16;
}

// A memory object that is created once and pointed at new data before each execution.
inline void point(dnnl::memory& memory, const void* data) {
  memory.set_data_handle(const_cast<void*>(data));
}

// Converts n contiguous elements between f32 and bf16 with a cached threaded reorder
// (a plain copy when the types are equal).
void convert(const void* src, dnnl::memory::data_type src_type, void* dst,
             dnnl::memory::data_type dst_type, int64_t n);

// "avx512_core_bf16" etc. for dnnl::get_effective_cpu_isa().
std::string isa_name(dnnl::cpu_isa isa);

}  // namespace heed::onednn::detail
