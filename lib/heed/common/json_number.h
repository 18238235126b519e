// Checked reads of JSON numbers. nlohmann's get<int>() and get<float>() convert with
// static_cast, which is undefined behaviour when the value does not fit the target (1e30 into
// an int, 1e300 into a float); the model-header fuzzer reached it through a model's config.
// Every number heed reads from a file it did not just write goes through these instead.
// Templates over the JSON type, so that this header needs no vendor header (the .cpp files that
// parse JSON include nlohmann's; docs/architecture.md keeps vendor headers out of lib/ headers).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

namespace heed {

namespace detail {

template <typename T>
std::optional<T> fit_integer(int64_t v) {
  using limits = std::numeric_limits<T>;
  if constexpr (std::is_signed_v<T>) {
    if (v < static_cast<int64_t>(limits::lowest()) || v > static_cast<int64_t>(limits::max())) {
      return std::nullopt;
    }
  } else {
    if (v < 0 || static_cast<uint64_t>(v) > static_cast<uint64_t>(limits::max())) {
      return std::nullopt;
    }
  }
  return static_cast<T>(v);
}

}  // namespace detail

// J as T when J is a number that T holds: for an integral T an integer in T's range (a float
// only when whole and below 2^53, so "512.0" reads as 512); for a floating T any number whose
// magnitude T can represent. nullopt for anything else, including non-numbers.
template <typename T, typename Json>
std::optional<T> json_number(const Json& j) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
  if constexpr (std::is_integral_v<T>) {
    if (j.is_number_unsigned()) {
      const auto v = j.template get<uint64_t>();
      if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) return std::nullopt;
      return static_cast<T>(v);
    }
    if (j.is_number_integer()) return detail::fit_integer<T>(j.template get<int64_t>());
    if (j.is_number_float()) {
      const double v = j.template get<double>();
      constexpr double kExact = 9007199254740992.0;  // 2^53
      if (!(std::abs(v) < kExact) || std::floor(v) != v) return std::nullopt;
      return detail::fit_integer<T>(static_cast<int64_t>(v));
    }
    return std::nullopt;
  } else {
    if (!j.is_number()) return std::nullopt;
    const double v = j.template get<double>();  // integer to double is always defined
    if (!std::isfinite(v) || std::abs(v) > static_cast<double>(std::numeric_limits<T>::max())) {
      return std::nullopt;
    }
    return static_cast<T>(v);
  }
}

// J as a vector of T when J is an array of numbers that T holds, nullopt otherwise.
template <typename T, typename Json>
std::optional<std::vector<T>> json_numbers(const Json& j) {
  if (!j.is_array()) return std::nullopt;
  std::vector<T> out;
  out.reserve(j.size());
  for (const auto& element : j) {
    const auto v = json_number<T>(element);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

}  // namespace heed
