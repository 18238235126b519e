// The reserved marks of heed's token format (docs/formats.md).
#pragma once

#include <string_view>

namespace heed::text {

// Joiner: a token that starts with it attaches to the previous token, one that ends with it
// to the next ("Hello ￭, world ￭!"). U+FFED HALFWIDTH BLACK SQUARE, as in OpenNMT.
inline constexpr std::string_view kJoiner = "\xEF\xBF\xAD";
// Placeholders ｟…｠ (U+FF5F, U+FF60) are never split or changed.
inline constexpr std::string_view kPlaceholderOpen = "\xEF\xBD\x9F";
inline constexpr std::string_view kPlaceholderClose = "\xEF\xBD\xA0";
// Escape mark: ％XXXX (U+FF05 and four hex digits) stands for the code point U+XXXX inside a
// token, for characters that would otherwise be read as marks or separators.
inline constexpr std::string_view kEscape = "\xEF\xBC\x85";
// Feature separator ￨ (U+FFE8, as in OpenNMT): "hello￨C" is the token "hello" with the case
// mark C (capitalized); U is all uppercase. Only the tokenizer's case feature writes it.
inline constexpr std::string_view kFeatureSeparator = "\xEF\xBF\xA8";

}  // namespace heed::text
