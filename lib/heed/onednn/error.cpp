// dnnl::error → BackendError, and the Precision names.
#include "heed/common/error.h"

#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "heed/onednn/internal.h"
#include "heed/onednn/precision.h"

namespace heed::onednn {

namespace detail {

void rethrow(const std::string& where, const dnnl::error& e) {
  if (e.status == dnnl_out_of_memory) {
    throw OutOfMemory(where + ": out of memory (oneDNN: " + e.what() + ")");
  }
  throw BackendError(where + ": " + e.what() + ": status " +
                     std::to_string(static_cast<int>(e.status)));
}

}  // namespace detail

const char* precision_name(Precision precision) {
  return precision == Precision::kF32 ? "f32" : "bf16";
}

Precision parse_precision(const std::string& name) {
  if (name == "f32") return Precision::kF32;
  if (name == "bf16") return Precision::kBF16;
  throw ConfigError("unknown precision '" + name + "' (valid: f32, bf16)");
}

}  // namespace heed::onednn
