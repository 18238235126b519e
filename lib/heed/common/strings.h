// Small string helpers shared by the library and the tools.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace heed {

// Splits on every occurrence of sep (sep must be non-empty); keeps empty fields.
std::vector<std::string> split(std::string_view text, std::string_view sep);
// Splits on runs of ASCII spaces and tabs; no empty fields.
std::vector<std::string_view> split_whitespace(std::string_view text);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
std::string_view trim(std::string_view text);
bool starts_with(std::string_view text, std::string_view prefix);
bool ends_with(std::string_view text, std::string_view suffix);
// The whole of text as a decimal integer (an optional sign, digits, nothing else); nullopt for
// anything else, out-of-range values included.
std::optional<int64_t> parse_int64(std::string_view text);

}  // namespace heed
