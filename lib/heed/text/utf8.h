// Minimal UTF-8 helpers for hot loops that must not go through ICU (BPE, vocabularies).
// Input is assumed valid: invalid text is rejected or repaired at the tokenizer boundary.
#pragma once

#include <cstddef>
#include <string_view>

namespace heed::text {

// Length in bytes of the UTF-8 sequence that starts with byte lead (1 for stray bytes).
inline size_t utf8_sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;
}

// Calls f(std::string_view character) for each code point of text.
template <typename F>
void for_each_utf8_char(std::string_view text, F&& f) {
  size_t i = 0;
  while (i < text.size()) {
    size_t n = utf8_sequence_length(static_cast<unsigned char>(text[i]));
    if (i + n > text.size()) n = text.size() - i;
    f(text.substr(i, n));
    i += n;
  }
}

}  // namespace heed::text
