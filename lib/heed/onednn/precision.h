// Arithmetic precision of a oneDNN-backed operation.
#pragma once

#include <string>

namespace heed::onednn {

// kBF16: bf16 data and weights with f32 accumulation, f32 master weights and f32 gradients
// (docs/onednn.md §6). Only where bf16_supported() (context.h).
enum class Precision { kF32, kBF16 };

// "f32" or "bf16".
const char* precision_name(Precision precision);
// "f32" | "bf16" → Precision; throws ConfigError listing the valid values.
Precision parse_precision(const std::string& name);

}  // namespace heed::onednn
