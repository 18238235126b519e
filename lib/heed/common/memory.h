// The machine's memory, and the one message every tool gives when a size it was handed could not
// fit in it (heed-train, heed-translate, heed-bench-attn, heed-pooling).
#pragma once

#include <string>

namespace heed {

// Physical memory of the machine in bytes (sysconf), 0 if unknown.
double physical_memory_bytes();

// Throws ConfigError "WHAT could need X GiB, more than the Y GiB of memory here[; ADVICE]" when
// bytes exceed the physical memory; returns when they fit or the memory is unknown. WHAT names
// the sizes that were given (e.g. "--batch-size 64: an update"), ADVICE what to lower.
void check_fits_in_memory(double bytes, const std::string& what, const std::string& advice = "");

}  // namespace heed
