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

// Decodes the UTF-8 sequence at text[i], advancing i; an ill-formed sequence is one U+FFFD, an
// overlong one too (text/unicode.h's next_code_point trusts its input, for speed). For code below
// text/ that must stay well-formed whatever it is given: an SVG's labels.
char32_t next_code_point_checked(std::string_view text, size_t& i);

// text escaped for XML character data and attribute values (&, <, >, " and '), with the
// characters XML 1.0 cannot hold at all (C0 controls other than tab, newline and carriage
// return; U+FFFE, U+FFFF) replaced by U+FFFD. text is UTF-8.
std::string xml_escape(std::string_view text);

}  // namespace heed
