// FNV-1a 64: a checksum for telling files and corpora apart (not for security).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace heed {

class Fnv1a {
 public:
  void mix(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) {
      hash_ ^= b[i];
      hash_ *= 1099511628211ull;
    }
  }
  // With the NUL: "ab","c" != "a","bc".
  void mix(const std::string& s) { mix(s.data(), s.size() + 1); }
  // As 16 hex digits.
  std::string hex() const {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash_));
    return hex;
  }

 private:
  uint64_t hash_ = 1469598103934665603ull;
};

}  // namespace heed
