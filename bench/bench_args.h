// Command-line helpers shared by the benchmark programs in bench/ (not installed).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

#include "heed/common/error.h"

namespace heed::bench {

// text as a positive integer; ConfigError naming flag otherwise.
inline int64_t parse_count(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < 1) {
    throw ConfigError(flag + " must be a positive integer, not '" + text + "'");
  }
  return value;
}

}  // namespace heed::bench
