// The only ICU user of the project (docs/architecture.md). ICU objects are created once:
// normalizers are process-wide singletons owned by ICU, and the word break iterator is created once
// and cloned per thread, since a break iterator must not be shared between threads.
#include "heed/text/unicode.h"

#include <unicode/brkiter.h>
#include <unicode/bytestream.h>
#include <unicode/casemap.h>
#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utext.h>
#include <unicode/utypes.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <new>

#include "heed/common/error.h"

namespace heed::text {

namespace detail {

void throw_icu_error(int status, std::string_view what) {
  const auto code = static_cast<UErrorCode>(status);
  const std::string message = "ICU " + std::string(what) + ": " + u_errorName(code);
  switch (code) {
    case U_MEMORY_ALLOCATION_ERROR:
      throw std::bad_alloc();
    case U_INVALID_CHAR_FOUND:
    case U_TRUNCATED_CHAR_FOUND:
    case U_ILLEGAL_CHAR_FOUND:
    case U_INDEX_OUTOFBOUNDS_ERROR:
      throw DataError(message + " (the text is not valid UTF-8 or too long)");
    default:
      throw InternalError(message);
  }
}

}  // namespace detail

namespace {

void check(UErrorCode status, const char* what) {
  if (U_FAILURE(status)) detail::throw_icu_error(status, what);
}

// ICU takes int32_t lengths.
int32_t icu_length(std::string_view text) {
  if (text.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    throw DataError("text of " + std::to_string(text.size()) +
                    " bytes is too long for Unicode processing (limit 2 GiB)");
  }
  return static_cast<int32_t>(text.size());
}

icu::StringPiece piece(std::string_view text) {
  return icu::StringPiece(text.data(), icu_length(text));
}

// Length of the well-formed UTF-8 sequence at p (avail bytes left), or 0 when it is ill-formed;
// then *subpart is the length of its maximal subpart (at least 1). Unicode table 3-7.
size_t sequence_length(const unsigned char* p, size_t avail, size_t* subpart) {
  const unsigned char lead = p[0];
  size_t trail;
  unsigned char lo = 0x80, hi = 0xBF;  // range of the first trail byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    trail = 1;
  } else if (lead == 0xE0) {
    trail = 2;
    lo = 0xA0;
  } else if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) {
    trail = 2;
  } else if (lead == 0xED) {
    trail = 2;
    hi = 0x9F;
  } else if (lead == 0xF0) {
    trail = 3;
    lo = 0x90;
  } else if (lead >= 0xF1 && lead <= 0xF3) {
    trail = 3;
  } else if (lead == 0xF4) {
    trail = 3;
    hi = 0x8F;
  } else {
    *subpart = 1;
    return 0;
  }
  for (size_t k = 1; k <= trail; ++k) {
    if (k >= avail || p[k] < lo || p[k] > hi) {
      *subpart = k;
      return 0;
    }
    lo = 0x80;
    hi = 0xBF;
  }
  return trail + 1;
}

bool ascii_block(const char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, sizeof word);
  return (word & 0x8080808080808080ULL) == 0;
}

const icu::Normalizer2& normalizer(Normalization form) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* n = form == Normalization::kNfkc
                                  ? icu::Normalizer2::getNFKCInstance(status)
                                  : icu::Normalizer2::getNFCInstance(status);
  check(status, "normalizer");
  return *n;
}

int8_t category(char32_t c) {
  return u_charType(static_cast<UChar32>(c));
}

std::uint32_t category_mask(char32_t c) {
  return U_GET_GC_MASK(static_cast<UChar32>(c));
}

// The word break iterator of the root locale: created once, cloned once per thread.
icu::BreakIterator& thread_word_iterator() {
  static std::once_flag once;
  static std::unique_ptr<icu::BreakIterator> prototype;
  std::call_once(once, [] {
    UErrorCode status = U_ZERO_ERROR;
    prototype.reset(icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
    check(status, "word break iterator");
    if (!prototype) detail::throw_icu_error(U_MISSING_RESOURCE_ERROR, "word break iterator");
  });
  if (!prototype) detail::throw_icu_error(U_MISSING_RESOURCE_ERROR, "word break iterator");
  thread_local std::unique_ptr<icu::BreakIterator> mine(prototype->clone());
  if (!mine) throw std::bad_alloc();
  return *mine;
}

// A UText per thread, re-pointed at each text (utext_openUTF8 reuses the struct).
struct ThreadUText {
  UText text = UTEXT_INITIALIZER;
  ~ThreadUText() { utext_close(&text); }
};

// Word-break classes of ASCII characters (UAX #29 Word_Break property as ICU 72 tailors it
// from CLDR: the colon is not MidLetter, and '@' is ALetter, so "a@b.c" is one word).
enum AsciiWordBreak : unsigned char {
  kWbOther,
  kWbLetter,        // ALetter
  kWbNumeric,       // Numeric
  kWbMidNumLetQ,    // MidNumLet (.) and Single_Quote (')
  kWbMidNum,        // MidNum (, ;)
  kWbExtendNumLet,  // _
  kWbSpace,         // WSegSpace
  kWbCr,
  kWbLf,
  kWbNewline,  // VT, FF
};

AsciiWordBreak ascii_word_break(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '@') return kWbLetter;
  if (c >= '0' && c <= '9') return kWbNumeric;
  switch (c) {
    case '.':
    case '\'':
      return kWbMidNumLetQ;
    case ',':
    case ';':
      return kWbMidNum;
    case '_':
      return kWbExtendNumLet;
    case ' ':
      return kWbSpace;
    case '\r':
      return kWbCr;
    case '\n':
      return kWbLf;
    case '\v':
    case '\f':
      return kWbNewline;
    default:
      return kWbOther;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// UTF-8

std::optional<size_t> find_invalid_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n && ascii_block(text.data() + i)) {
      i += 8;
      continue;
    }
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    size_t subpart = 0;
    const size_t length = sequence_length(p + i, n - i, &subpart);
    if (length == 0) return i;
    i += length;
  }
  return std::nullopt;
}

std::string replace_invalid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    if (p[i] < 0x80) {
      out += text[i++];
      continue;
    }
    size_t subpart = 0;
    const size_t length = sequence_length(p + i, n - i, &subpart);
    if (length > 0) {
      out.append(text.data() + i, length);
      i += length;
    } else {
      out += "\xEF\xBF\xBD";
      i += subpart;
    }
  }
  return out;
}

bool is_ascii(std::string_view text) {
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    if (!ascii_block(text.data() + i)) return false;
  }
  for (; i < text.size(); ++i) {
    if (static_cast<unsigned char>(text[i]) >= 0x80) return false;
  }
  return true;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// ---------------------------------------------------------------------------------------------
// Normalization and case mapping

void append_normalized(std::string_view text, Normalization form, std::string& out) {
  if (form == Normalization::kNone || text.empty() || is_ascii(text)) {
    out.append(text);
    return;
  }
  const icu::Normalizer2& n = normalizer(form);
  UErrorCode status = U_ZERO_ERROR;
  if (n.isNormalizedUTF8(piece(text), status) && U_SUCCESS(status)) {
    out.append(text);
    return;
  }
  status = U_ZERO_ERROR;
  icu::StringByteSink<std::string> sink(&out, icu_length(text));
  n.normalizeUTF8(0, piece(text), sink, nullptr, status);
  check(status, "normalize");
}

bool is_normalized(std::string_view text, Normalization form) {
  if (form == Normalization::kNone || is_ascii(text)) return true;
  UErrorCode status = U_ZERO_ERROR;
  const bool yes = normalizer(form).isNormalizedUTF8(piece(text), status);
  check(status, "normalization check");
  return yes;
}

void append_lower(std::string_view text, std::string& out) {
  if (is_ascii(text)) {
    for (char c : text) out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
    return;
  }
  UErrorCode status = U_ZERO_ERROR;
  icu::StringByteSink<std::string> sink(&out, icu_length(text));
  icu::CaseMap::utf8ToLower("", 0, piece(text), sink, nullptr, status);
  check(status, "lowercase");
}

void append_upper(std::string_view text, std::string& out) {
  if (is_ascii(text)) {
    for (char c : text) out += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
    return;
  }
  UErrorCode status = U_ZERO_ERROR;
  icu::StringByteSink<std::string> sink(&out, icu_length(text));
  icu::CaseMap::utf8ToUpper("", 0, piece(text), sink, nullptr, status);
  check(status, "uppercase");
}

std::string to_lower(std::string_view text) {
  std::string out;
  append_lower(text, out);
  return out;
}

std::string to_upper(std::string_view text) {
  std::string out;
  append_upper(text, out);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Code-point classes

bool is_white_space(char32_t c) {
  return u_isUWhiteSpace(static_cast<UChar32>(c));
}
bool is_control(char32_t c) {
  return category(c) == U_CONTROL_CHAR;
}
bool is_format(char32_t c) {
  return category(c) == U_FORMAT_CHAR;
}
bool is_letter(char32_t c) {
  return (category_mask(c) & U_GC_L_MASK) != 0;
}
bool is_mark(char32_t c) {
  return (category_mask(c) & U_GC_M_MASK) != 0;
}
bool is_digit(char32_t c) {
  return category(c) == U_DECIMAL_DIGIT_NUMBER;
}
bool is_number(char32_t c) {
  return (category_mask(c) & U_GC_N_MASK) != 0;
}
bool is_punctuation(char32_t c) {
  return (category_mask(c) & U_GC_P_MASK) != 0;
}
bool is_symbol(char32_t c) {
  return (category_mask(c) & U_GC_S_MASK) != 0;
}

bool changes_when_lowercased(char32_t c) {
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_CHANGES_WHEN_LOWERCASED);
}

std::string_view script_code(char32_t c) {
  UErrorCode status = U_ZERO_ERROR;
  const UScriptCode script = uscript_getScript(static_cast<UChar32>(c), &status);
  check(status, "script");
  const char* name = uscript_getShortName(script);
  return name ? std::string_view(name) : std::string_view("Zzzz");
}

// ---------------------------------------------------------------------------------------------
// Word boundaries

void word_boundaries(std::string_view text, std::vector<size_t>& ends) {
  if (text.empty()) return;
  thread_local ThreadUText ut;
  UErrorCode status = U_ZERO_ERROR;
  // utext_openUTF8 with a null pointer and length 0 is an empty text; data() of a non-empty
  // view is never null.
  utext_openUTF8(&ut.text, text.data(), icu_length(text), &status);
  check(status, "open text");
  icu::BreakIterator& it = thread_word_iterator();
  it.setText(&ut.text, status);
  check(status, "word boundaries");
  // With a UTF-8 UText, ICU's indexes are byte offsets.
  it.first();
  for (int32_t end = it.next(); end != icu::BreakIterator::DONE; end = it.next()) {
    ends.push_back(static_cast<size_t>(end));
  }
}

void ascii_word_boundaries(std::string_view text, std::vector<size_t>& ends) {
  const size_t n = text.size();
  if (n == 0) return;
  const auto cls = [&](size_t i) {
    return i < n ? ascii_word_break(static_cast<unsigned char>(text[i])) : kWbOther;
  };
  const auto ahl = [](AsciiWordBreak c) { return c == kWbLetter; };
  const auto mid_letter = [](AsciiWordBreak c) { return c == kWbMidNumLetQ; };
  const auto mid_num = [](AsciiWordBreak c) { return c == kWbMidNum || c == kWbMidNumLetQ; };
  AsciiWordBreak before2 = kWbOther;  // class at i - 2
  AsciiWordBreak a = cls(0);          // class at i - 1
  for (size_t i = 1; i < n; ++i) {
    const AsciiWordBreak b = cls(i);
    bool join;
    if (a == kWbCr && b == kWbLf) {
      join = true;  // WB3
    } else if (a == kWbCr || a == kWbLf || a == kWbNewline || b == kWbCr || b == kWbLf ||
               b == kWbNewline) {
      join = false;  // WB3a, WB3b
    } else if (a == kWbSpace && b == kWbSpace) {
      join = true;  // WB3d
    } else if (ahl(a) && ahl(b)) {
      join = true;  // WB5
    } else if (ahl(a) && mid_letter(b) && ahl(cls(i + 1))) {
      join = true;  // WB6
    } else if (ahl(before2) && mid_letter(a) && ahl(b)) {
      join = true;  // WB7
    } else if ((a == kWbNumeric || ahl(a)) && (b == kWbNumeric || ahl(b))) {
      join = true;  // WB8, WB9, WB10
    } else if (before2 == kWbNumeric && mid_num(a) && b == kWbNumeric) {
      join = true;  // WB11
    } else if (a == kWbNumeric && mid_num(b) && cls(i + 1) == kWbNumeric) {
      join = true;  // WB12
    } else if ((ahl(a) || a == kWbNumeric || a == kWbExtendNumLet) && b == kWbExtendNumLet) {
      join = true;  // WB13a
    } else if (a == kWbExtendNumLet && (ahl(b) || b == kWbNumeric)) {
      join = true;  // WB13b
    } else {
      join = false;  // WB999
    }
    if (!join) ends.push_back(i);
    before2 = a;
    a = b;
  }
  ends.push_back(n);
}

}  // namespace heed::text
