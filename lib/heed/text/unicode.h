// The project's one window onto ICU (docs/architecture.md): UTF-8 validation and repair, Unicode
// normalization, case mapping, code-point classes and word boundaries. Only std types cross
// this header; unicode.cpp is the only file that includes ICU, and it turns ICU's UErrorCode
// into heed exceptions. Every function is thread-safe (ICU's break iterators are not, so
// unicode.cpp keeps one clone per thread).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace heed::text {

// ---------------------------------------------------------------------------------------------
// UTF-8

// Byte offset of the first byte of the first ill-formed sequence in text, or nullopt when text
// is well-formed UTF-8. Overlong forms, surrogates (U+D800..U+DFFF) and code points above
// U+10FFFF are ill-formed (Unicode §3.9, table 3-7). NUL is well-formed.
std::optional<size_t> find_invalid_utf8(std::string_view text);

// text with each maximal subpart of an ill-formed sequence replaced by U+FFFD (the "maximal
// subparts" practice of Unicode §3.9, which ICU, WHATWG and Python follow): "a\xE2\x82z" gives
// "a\uFFFDz", "a\xFF\xFEz" gives "a\uFFFD\uFFFDz". Well-formed text comes back unchanged.
std::string replace_invalid_utf8(std::string_view text);

// True when every byte is below 0x80.
bool is_ascii(std::string_view text);

// Decodes the code point that starts at text[pos] and advances pos past it. text must be
// well-formed UTF-8; a sequence cut short by the end of text gives U+FFFD.
inline char32_t next_code_point(std::string_view text, size_t& pos) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) {
    ++pos;
    return lead;
  }
  size_t length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  if (pos + length > text.size()) {
    pos = text.size();
    return 0xFFFD;
  }
  char32_t c = lead & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07);
  for (size_t k = 1; k < length; ++k) c = (c << 6) | (byte(pos + k) & 0x3F);
  pos += length;
  return c;
}

// Appends the UTF-8 form of c (a Unicode scalar value) to out.
void append_utf8(std::string& out, char32_t c);

// ---------------------------------------------------------------------------------------------
// Normalization and case mapping

enum class Normalization {
  kNone,  // leave the text as it is
  kNfc,   // canonical composition
  kNfkc,  // compatibility composition: ﬁ → fi, fullwidth Ａ → A, ² → 2
};

// Appends text in normalization form `form` to out (kNone appends text unchanged).
void append_normalized(std::string_view text, Normalization form, std::string& out);
bool is_normalized(std::string_view text, Normalization form);

// Full case mapping of the root locale (SpecialCasing.txt: ß → SS, İ → i̇; final sigma in
// context), appended to out.
void append_lower(std::string_view text, std::string& out);
void append_upper(std::string_view text, std::string& out);
std::string to_lower(std::string_view text);
std::string to_upper(std::string_view text);

// ---------------------------------------------------------------------------------------------
// Code-point classes

bool is_white_space(char32_t c);  // the White_Space property: SPACE, TAB, NBSP, U+2009, U+3000 …
bool is_control(char32_t c);      // general category Cc: C0, DEL, C1 (NUL included)
bool is_format(char32_t c);       // Cf: ZWJ U+200D, soft hyphen, BOM U+FEFF, bidi marks …
bool is_letter(char32_t c);       // L*
bool is_mark(char32_t c);         // M*: combining marks
bool is_digit(char32_t c);        // Nd: decimal digits of any script
bool is_number(char32_t c);       // N*: Nd, Nl (Roman numerals), No (superscripts, fractions)
bool is_punctuation(char32_t c);  // P*
bool is_symbol(char32_t c);       // S*: currency, math, emoji …
// True when lowercasing changes c (the Changes_When_Lowercased property): uppercase and
// titlecase letters, but also Ⓐ or Ⅻ.
bool changes_when_lowercased(char32_t c);
// ISO 15924 code of c's Script property: "Latn", "Cyrl", "Grek", "Arab", "Hani", "Hira",
// "Zyyy" (common: digits, punctuation, emoji), "Zinh" (inherited: combining marks).
std::string_view script_code(char32_t c);

// ---------------------------------------------------------------------------------------------
// Word boundaries

// Word segmentation by ICU's rules (UAX #29 word boundaries with ICU's tailoring; CJK, Thai,
// Lao, Khmer and Burmese by ICU's dictionaries). Appends to ends the byte offset where each
// segment of text ends, in increasing order; the last is text.size(). Segments cover text:
// words ("l'avion", "3.14", "2,000", "北京"), each punctuation mark, runs of spaces, emoji
// sequences (ZWJ sequences, flags, skin tones) as one segment. Empty text appends nothing.
void word_boundaries(std::string_view text, std::vector<size_t>& ends);

// The same segmentation for ASCII text without ICU (the tokenizer's fast path). For ASCII
// text it gives exactly what word_boundaries gives (unicode_test checks this).
void ascii_word_boundaries(std::string_view text, std::vector<size_t>& ends);

namespace detail {
// Throws the heed exception for an ICU failure: status is a UErrorCode, what names the call.
// Memory errors give std::bad_alloc, ill-formed text DataError, anything else InternalError
// ("ICU <what>: <error name>"). Exposed for the tests.
[[noreturn]] void throw_icu_error(int status, std::string_view what);
}  // namespace detail

}  // namespace heed::text
