// Tokenizer: normalize → segment (spaces, placeholders, URLs, ICU word boundaries, mode rules)
// → emit (joiners, case marks, BPE, escapes). detokenize() is the exact inverse of emit, and
// the tokens are substrings of normalize(line), so detokenize(tokenize(x)) == normalize(x).
//
// Speed: ASCII lines are normalized in one pass and ASCII chunks are segmented without ICU
// (ascii_word_boundaries gives ICU's answer); working buffers are per thread and reused, so a
// line costs no allocation beyond its result.
#include "heed/text/tokenizer.h"

#include <algorithm>
#include <cstring>

#include "heed/common/check.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/text/bpe.h"
#include "heed/text/markers.h"

namespace heed::text {

namespace {

constexpr size_t kNpos = std::string_view::npos;

constexpr char32_t kEscapeCp = 0xFF05;
constexpr char32_t kPlaceholderOpenCp = 0xFF5F;
constexpr char32_t kPlaceholderCloseCp = 0xFF60;
constexpr char32_t kFeatureSeparatorCp = 0xFFE8;
constexpr char32_t kJoinerCp = 0xFFED;
constexpr char32_t kZeroWidthSpace = 0x200B;
constexpr char32_t kByteOrderMark = 0xFEFF;

// The reserved marks all start with byte 0xEF (U+F000..U+FFFF).
constexpr unsigned char kMarkLead = 0xEF;

bool is_reserved(char32_t c) {
  return c == kEscapeCp || c == kPlaceholderOpenCp || c == kPlaceholderCloseCp ||
         c == kFeatureSeparatorCp || c == kJoinerCp;
}

// True if text holds a reserved mark (escape, placeholder bracket, case separator, joiner).
bool has_reserved_mark(std::string_view text) {
  if (text.find(static_cast<char>(kMarkLead)) == std::string_view::npos) return false;
  size_t pos = 0;
  while (pos < text.size()) {
    if (is_reserved(next_code_point(text, pos))) return true;
  }
  return false;
}

bool ascii_alpha(unsigned char b) {
  return (b | 0x20) >= 'a' && (b | 0x20) <= 'z';
}
bool ascii_digit(unsigned char b) {
  return b >= '0' && b <= '9';
}
bool ascii_alnum(unsigned char b) {
  return ascii_alpha(b) || ascii_digit(b);
}
bool ascii_space(unsigned char b) {
  return b == ' ' || (b >= 0x09 && b <= 0x0D);
}
unsigned char byte_at(std::string_view text, size_t i) {
  return static_cast<unsigned char>(text[i]);
}

bool is_space_char(char32_t c) {
  return c == kZeroWidthSpace || is_white_space(c);
}
bool is_removed_char(char32_t c) {
  return c == kByteOrderMark || is_control(c);
}
bool is_letter_or_digit(char32_t c) {
  if (c < 0x80) return ascii_alnum(static_cast<unsigned char>(c));
  return is_letter(c) || is_digit(c);
}

// A letter, digit or combining mark: what a hyphen inside a word follows.
bool ends_word(char32_t c) {
  return is_letter_or_digit(c) || (c >= 0x80 && is_mark(c));
}

// The code point that ends at text[end - 1].
char32_t last_code_point(std::string_view text, size_t end, size_t* begin = nullptr) {
  size_t p = end;
  do {
    --p;
  } while (p > 0 && (byte_at(text, p) & 0xC0) == 0x80);
  if (begin) *begin = p;
  return next_code_point(text, p);
}

char32_t first_code_point(std::string_view text, size_t begin) {
  return next_code_point(text, begin);
}

// The end of the placeholder that opens at text[pos] (｟ up to the first ｠ after it), or
// kNpos. Once a ｟ has no ｠ after it, no later one has: may_close remembers that, which keeps
// the scan linear. normalize() and segment() use this same rule, so they agree.
size_t placeholder_end(std::string_view text, size_t pos, bool& may_close) {
  if (!may_close || text.compare(pos, kPlaceholderOpen.size(), kPlaceholderOpen) != 0) {
    return kNpos;
  }
  const size_t close = text.find(kPlaceholderClose, pos + kPlaceholderOpen.size());
  if (close == kNpos) {
    may_close = false;
    return kNpos;
  }
  return close + kPlaceholderClose.size();
}

enum class Kind : unsigned char {
  kWord,         // has a letter or a digit: case-split and BPE apply
  kOther,        // punctuation, symbols, emoji: the joiner goes on this side
  kPlaceholder,  // ｟…｠, copied as it is (spaces escaped)
  kUrl,          // URL or e-mail address, one token
};

struct Piece {
  size_t begin;
  size_t end;
  Kind kind;
  bool glued;  // no space between this piece and the previous one
};

struct Segment {
  size_t begin;
  size_t end;
  Kind kind;
};

struct CasePart {
  std::string_view original;
  std::string text;  // lowercased, or the original when no mark can restore it
  char mark;         // 0, 'C' or 'U'
};

struct SubToken {
  std::string text;
  char mark;
};

// Working buffers, one set per thread (the stream pipeline shares one Tokenizer).
struct Scratch {
  std::string normalized, cleaned, transformed, run1, run2, lowered, cased, unescaped, line;
  std::vector<size_t> ends;
  std::vector<Segment> segments;
  std::vector<Piece> pieces;
  std::vector<CasePart> parts;
  std::vector<SubToken> subs;
  std::vector<std::string> bpe_pieces;
  std::vector<size_t> cp_begin;
  std::vector<char> cp_flags;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// ---------------------------------------------------------------------------------------------
// Normalization

// What the one-pass ASCII normalization does with each byte.
enum AsciiAction : unsigned char { kKeep, kSpace, kDrop };

struct AsciiTable {
  AsciiAction action[128];
  constexpr AsciiTable() : action() {
    for (int b = 0; b < 128; ++b) {
      action[b] = (b == ' ' || (b >= 0x09 && b <= 0x0D)) ? kSpace
                  : (b < 0x20 || b == 0x7F)              ? kDrop
                                                         : kKeep;
    }
  }
};
constexpr AsciiTable kAsciiTable;

// True when an ASCII line is already normalized (no controls, no double, leading or trailing
// spaces): the common case, checked by a loop the compiler vectorizes.
bool ascii_is_normalized(std::string_view line) {
  if (line.empty()) return true;
  if (line.front() == ' ' || line.back() == ' ') return false;
  unsigned bad = 0;
  unsigned char previous = 0;
  for (char ch : line) {
    const auto b = static_cast<unsigned char>(ch);
    bad |= static_cast<unsigned>(b < 0x20) | static_cast<unsigned>(b == 0x7F) |
           (static_cast<unsigned>(b == ' ') & static_cast<unsigned>(previous == ' '));
    previous = b;
  }
  return bad == 0;
}

// ASCII lines in one pass: spaces mapped and collapsed, ends trimmed, controls dropped.
void normalize_ascii(std::string_view line, bool lowercase, std::string& out) {
  if (!lowercase && ascii_is_normalized(line)) {
    out.assign(line);
    return;
  }
  out.resize(line.size());
  char* const begin = out.data();
  char* dst = begin;
  bool pending_space = false;
  for (char ch : line) {
    const auto b = static_cast<unsigned char>(ch);
    const AsciiAction action = kAsciiTable.action[b];
    if (action == kKeep) {
      if (pending_space) {
        *dst++ = ' ';
        pending_space = false;
      }
      *dst++ = (lowercase && b >= 'A' && b <= 'Z') ? static_cast<char>(b + 32) : ch;
    } else if (action == kSpace) {
      pending_space = dst != begin;
    }
  }
  out.resize(static_cast<size_t>(dst - begin));
}

// Spaces mapped to ' ', controls and U+FEFF dropped; placeholders copied (only controls that
// are not spaces are dropped from them).
void clean(std::string_view line, std::string& out) {
  bool may_close = true;
  size_t pos = 0;
  while (pos < line.size()) {
    size_t run = pos;
    while (run < line.size() && byte_at(line, run) < 0x80 &&
           kAsciiTable.action[byte_at(line, run)] == kKeep) {
      ++run;
    }
    out.append(line, pos, run - pos);
    pos = run;
    if (pos == line.size()) break;
    const unsigned char b = byte_at(line, pos);
    if (b < 0x80) {
      if (ascii_space(b)) {
        out += ' ';
      } else if (b >= 0x20 && b != 0x7F) {
        out += static_cast<char>(b);
      }
      ++pos;
      continue;
    }
    if (b == kMarkLead) {
      const size_t end = placeholder_end(line, pos, may_close);
      if (end != kNpos) {
        while (pos < end) {
          size_t next = pos;
          const char32_t c = next_code_point(line, next);
          if (!is_removed_char(c) || is_white_space(c)) out.append(line, pos, next - pos);
          pos = next;
        }
        continue;
      }
    }
    size_t next = pos;
    const char32_t c = next_code_point(line, next);
    if (is_space_char(c)) {
      out += ' ';
    } else if (!is_removed_char(c)) {
      out.append(line, pos, next - pos);
    }
    pos = next;
  }
}

// Normalization form and lowercasing of a run that holds no reserved mark.
void transform_run(std::string_view run, const TokenizerOptions& o, std::string& out) {
  if (run.empty()) return;
  if (!o.lowercase) {
    append_normalized(run, o.normalization, out);
    return;
  }
  if (o.normalization == Normalization::kNone) {
    append_lower(run, out);
    return;
  }
  // Normalize first (NFKC turns ℌ into H), lowercase, and normalize again if lowercasing
  // broke the form, so that normalize() is idempotent.
  Scratch& s = scratch();
  s.run1.clear();
  append_normalized(run, o.normalization, s.run1);
  s.run2.clear();
  append_lower(s.run1, s.run2);
  append_normalized(s.run2, o.normalization, out);
}

// Text outside placeholders: normalization (the reserved marks protected from NFKC, which
// would map ￭ to ■ and ｟ to ⦅) and lowercasing.
void transform(std::string_view text, const TokenizerOptions& o, std::string& out) {
  if (is_ascii(text)) {
    if (o.lowercase) {
      append_lower(text, out);
    } else {
      out.append(text);
    }
    return;
  }
  if (o.normalization != Normalization::kNfkc) {
    transform_run(text, o, out);
    return;
  }
  size_t start = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    if (byte_at(text, pos) != kMarkLead) {
      ++pos;
      continue;
    }
    size_t next = pos;
    const char32_t c = next_code_point(text, next);
    if (is_reserved(c)) {
      transform_run(text.substr(start, pos - start), o, out);
      out.append(text, pos, next - pos);
      start = next;
    }
    pos = next;
  }
  transform_run(text.substr(start), o, out);
}

// Runs of spaces outside placeholders collapsed to one; leading and trailing ones removed.
void collapse_spaces(std::string_view text, std::string& out) {
  bool may_close = true;
  bool pending_space = false;
  size_t pos = 0;
  while (pos < text.size()) {
    const char ch = text[pos];
    if (ch == ' ') {
      pending_space = !out.empty();
      ++pos;
      continue;
    }
    if (pending_space) {
      out += ' ';
      pending_space = false;
    }
    if (static_cast<unsigned char>(ch) != kMarkLead) {
      size_t run = pos + 1;
      while (run < text.size() && text[run] != ' ' && byte_at(text, run) != kMarkLead) ++run;
      out.append(text, pos, run - pos);
      pos = run;
      continue;
    }
    const size_t end = placeholder_end(text, pos, may_close);
    if (end != kNpos) {
      out.append(text, pos, end - pos);
      pos = end;
    } else {
      out += ch;
      ++pos;
    }
  }
}

void normalize_into(std::string_view line, const TokenizerOptions& o, std::string& out) {
  out.clear();
  if (is_ascii(line)) {
    normalize_ascii(line, o.lowercase, out);
    return;
  }
  Scratch& s = scratch();
  s.cleaned.clear();
  clean(line, s.cleaned);
  const std::string_view cleaned = s.cleaned;
  s.transformed.clear();
  bool may_close = true;
  size_t start = 0;
  size_t pos = 0;
  while (may_close && (pos = cleaned.find(kPlaceholderOpen, pos)) != kNpos) {
    const size_t end = placeholder_end(cleaned, pos, may_close);
    if (end == kNpos) break;
    transform(cleaned.substr(start, pos - start), o, s.transformed);
    s.transformed.append(cleaned, pos, end - pos);
    pos = start = end;
  }
  transform(cleaned.substr(start), o, s.transformed);
  collapse_spaces(s.transformed, out);
}

// ---------------------------------------------------------------------------------------------
// URLs and e-mail addresses

bool iequals_ascii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if ((static_cast<unsigned char>(a[i]) | 0x20) != static_cast<unsigned char>(b[i])) {
      return false;
    }
  }
  return true;
}

// End of a URL whose body starts at text[body] (after "scheme://" or "www."): up to a
// character that cannot be in one, minus trailing sentence punctuation and unbalanced
// closing brackets.
size_t url_end(std::string_view text, size_t body, size_t to) {
  size_t end = body;
  int open_paren = 0, close_paren = 0, open_bracket = 0, close_bracket = 0;
  while (end < to) {
    const unsigned char b = byte_at(text, end);
    if (b < 0x80) {
      if (std::strchr("<>\"`{}|\\^", b)) break;
      open_paren += b == '(';
      close_paren += b == ')';
      open_bracket += b == '[';
      close_bracket += b == ']';
      ++end;
      continue;
    }
    size_t next = end;
    const char32_t c = next_code_point(text, next);
    if (is_reserved(c)) break;
    end = next;
  }
  while (end > body) {
    size_t last = 0;
    const char32_t c = last_code_point(text, end, &last);
    bool drop;
    if (c == ')') {
      drop = close_paren > open_paren;
      close_paren -= drop;
    } else if (c == ']') {
      drop = close_bracket > open_bracket;
      close_bracket -= drop;
    } else if (c < 0x80) {
      drop = std::strchr(".,;:!?'\"*", static_cast<int>(c)) != nullptr;
    } else {
      drop = is_punctuation(c);
    }
    if (!drop) break;
    end = last;
  }
  return end;
}

bool email_local_char(unsigned char b) {
  return ascii_alnum(b) || std::strchr("._%+-", b);
}

// An e-mail address around the '@' at text[at], within [from, to).
bool find_email(std::string_view text, size_t from, size_t to, size_t at, size_t& begin,
                size_t& end) {
  size_t b = at;
  while (b > from && email_local_char(byte_at(text, b - 1))) --b;
  while (b < at && !ascii_alnum(byte_at(text, b))) ++b;
  if (b == at) return false;
  size_t e = at + 1;
  while (e < to && (ascii_alnum(byte_at(text, e)) || text[e] == '-' || text[e] == '.')) ++e;
  while (e > at + 1 && (text[e - 1] == '.' || text[e - 1] == '-')) --e;
  const std::string_view domain = text.substr(at + 1, e - at - 1);
  if (domain.empty() || !ascii_alnum(byte_at(domain, 0))) return false;
  const size_t dot = domain.rfind('.');
  if (dot == kNpos || domain.find("..") != kNpos) return false;
  const std::string_view tld = domain.substr(dot + 1);
  if (tld.size() < 2) return false;
  for (char ch : tld) {
    if (!ascii_alpha(static_cast<unsigned char>(ch))) return false;
  }
  begin = b;
  end = e;
  return true;
}

// The first URL (http://, https://, ftp://, www.) or e-mail address in text[from, to).
bool find_special(std::string_view text, size_t from, size_t to, size_t& begin, size_t& end) {
  for (size_t i = from; i < to; ++i) {
    const char ch = text[i];
    if (ch == ':') {
      if (text.compare(i, 3, "://") != 0) continue;
      size_t j = i;
      while (j > from && ascii_alpha(byte_at(text, j - 1))) --j;
      const std::string_view scheme = text.substr(j, i - j);
      if (!iequals_ascii(scheme, "http") && !iequals_ascii(scheme, "https") &&
          !iequals_ascii(scheme, "ftp")) {
        continue;
      }
      if (j > from && ascii_digit(byte_at(text, j - 1))) continue;
      const size_t e = url_end(text, i + 3, to);
      if (e > i + 3) {
        begin = j;
        end = e;
        return true;
      }
    } else if (ch == 'w' || ch == 'W') {
      if (i > from && ascii_alnum(byte_at(text, i - 1))) continue;
      if (i + 4 >= to || !iequals_ascii(text.substr(i, 4), "www.") ||
          !ascii_alnum(byte_at(text, i + 4))) {
        continue;
      }
      begin = i;
      end = url_end(text, i + 4, to);
      return true;
    } else if (ch == '@') {
      if (find_email(text, from, to, i, begin, end)) return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Segmentation

Kind word_kind(std::string_view text, size_t begin, size_t end) {
  size_t pos = begin;
  while (pos < end) {
    const unsigned char b = byte_at(text, pos);
    if (b < 0x80) {
      if (ascii_alnum(b)) return Kind::kWord;
      ++pos;
      continue;
    }
    if (is_letter_or_digit(next_code_point(text, pos))) return Kind::kWord;
  }
  return Kind::kOther;
}

bool is_single(std::string_view text, const Segment& s, char32_t a, char32_t b, char32_t c) {
  size_t pos = s.begin;
  const char32_t cp = next_code_point(text, pos);
  return pos == s.end && (cp == a || cp == b || cp == c);
}

// Conservative rules on top of ICU's segments: hyphenated words (soft-landing, e-mail,
// COVID-19) and signed numbers (-5, −3.2 at the start of a chunk or after a non-word).
void merge_conservative(std::string_view text, bool glued, std::vector<Segment>& segs) {
  size_t out = 0;
  for (size_t k = 0; k < segs.size(); ++k) {
    const Segment seg = segs[k];
    const bool next_word = k + 1 < segs.size() && segs[k + 1].kind == Kind::kWord;
    if (next_word && out > 0 && segs[out - 1].kind == Kind::kWord &&
        is_single(text, seg, U'-', U'\u2010', U'\u2011') &&
        ends_word(last_code_point(text, segs[out - 1].end)) &&
        is_letter_or_digit(first_code_point(text, segs[k + 1].begin))) {
      segs[out - 1].end = segs[k + 1].end;
      ++k;
      continue;
    }
    if (next_word && (out == 0 ? !glued : segs[out - 1].kind != Kind::kWord) &&
        is_single(text, seg, U'-', U'\u2212', U'-')) {
      const char32_t first = first_code_point(text, segs[k + 1].begin);
      if (first < 0x80 ? ascii_digit(static_cast<unsigned char>(first)) : is_digit(first)) {
        segs[out++] = {seg.begin, segs[k + 1].end, Kind::kWord};
        ++k;
        continue;
      }
    }
    segs[out++] = seg;
  }
  segs.resize(out);
}

// Aggressive rule: a word segment becomes runs of letters, runs of digits, and each other
// character on its own (combining marks and format characters stay with what precedes).
void split_aggressive(std::string_view text, const Segment& seg, bool& glued,
                      std::vector<Piece>& pieces) {
  enum Class { kNone, kLetters, kDigits, kSingle };
  Class run = kNone;
  size_t run_begin = seg.begin;
  size_t pos = seg.begin;
  const auto flush = [&](size_t end) {
    pieces.push_back({run_begin, end, run == kSingle ? Kind::kOther : Kind::kWord, glued});
    glued = true;
  };
  while (pos < seg.end) {
    size_t next = pos;
    const char32_t c = next_code_point(text, next);
    Class cls;
    if (c < 0x80) {
      const auto b = static_cast<unsigned char>(c);
      cls = ascii_alpha(b) ? kLetters : ascii_digit(b) ? kDigits : kSingle;
    } else if (is_letter(c)) {
      cls = kLetters;
    } else if (is_digit(c)) {
      cls = kDigits;
    } else if (run != kNone && (is_mark(c) || is_format(c))) {
      pos = next;
      continue;
    } else {
      cls = kSingle;
    }
    if (run == kNone) {
      run = cls;
      run_begin = pos;
    } else if (cls != run || cls == kSingle) {
      flush(pos);
      run = cls;
      run_begin = pos;
    }
    pos = next;
  }
  if (run != kNone) flush(seg.end);
}

// ICU word segments of text[begin, end) (no spaces, placeholders or URLs in it), with the
// mode's rules.
void segment_words(std::string_view text, size_t begin, size_t end, const TokenizerOptions& o,
                   bool& glued, std::vector<Piece>& pieces) {
  if (begin >= end) return;
  Scratch& s = scratch();
  const std::string_view chunk = text.substr(begin, end - begin);
  s.ends.clear();
  if (is_ascii(chunk)) {
    ascii_word_boundaries(chunk, s.ends);
  } else {
    word_boundaries(chunk, s.ends);
  }
  s.segments.clear();
  size_t b = begin;
  for (size_t e : s.ends) {
    s.segments.push_back({b, begin + e, word_kind(text, b, begin + e)});
    b = begin + e;
  }
  if (o.mode == TokenizeMode::kConservative) {
    merge_conservative(text, glued, s.segments);
    for (const Segment& seg : s.segments) {
      pieces.push_back({seg.begin, seg.end, seg.kind, glued});
      glued = true;
    }
  } else {
    for (const Segment& seg : s.segments) {
      if (seg.kind == Kind::kWord) {
        split_aggressive(text, seg, glued, pieces);
      } else {
        pieces.push_back({seg.begin, seg.end, seg.kind, glued});
        glued = true;
      }
    }
  }
}

// A chunk: text between spaces and placeholders. URLs and e-mail addresses are cut out
// first, the rest goes to the word segmenter.
void segment_chunk(std::string_view text, size_t begin, size_t end, const TokenizerOptions& o,
                   bool& glued, std::vector<Piece>& pieces) {
  size_t pos = begin;
  size_t special_begin = 0, special_end = 0;
  while (pos < end && find_special(text, pos, end, special_begin, special_end)) {
    segment_words(text, pos, special_begin, o, glued, pieces);
    pieces.push_back({special_begin, special_end, Kind::kUrl, glued});
    glued = true;
    pos = special_end;
  }
  segment_words(text, pos, end, o, glued, pieces);
}

void segment(std::string_view text, const TokenizerOptions& o, std::vector<Piece>& pieces) {
  bool glued = false;
  bool may_close = true;
  size_t pos = 0;
  const size_t n = text.size();
  while (pos < n) {
    if (text[pos] == ' ') {
      glued = false;
      ++pos;
      continue;
    }
    if (byte_at(text, pos) == kMarkLead) {
      const size_t end = placeholder_end(text, pos, may_close);
      if (end != kNpos) {
        pieces.push_back({pos, end, Kind::kPlaceholder, glued});
        glued = true;
        pos = end;
        continue;
      }
    }
    // Most chunks are plain ASCII words: those skip the segmenter.
    size_t end = pos;
    bool letters = true, digits = true;
    while (end < n && text[end] != ' ') {
      const unsigned char b = byte_at(text, end);
      letters = letters && ascii_alpha(b);
      digits = digits && ascii_digit(b);
      if (b == kMarkLead && may_close &&
          text.compare(end, kPlaceholderOpen.size(), kPlaceholderOpen) == 0) {
        bool probe = may_close;
        if (placeholder_end(text, end, probe) != kNpos) break;
        may_close = probe;
      }
      ++end;
    }
    if ((letters || digits) && end > pos) {
      pieces.push_back({pos, end, Kind::kWord, glued});
      glued = true;
    } else {
      segment_chunk(text, pos, end, o, glued, pieces);
    }
    pos = end;
  }
}

// ---------------------------------------------------------------------------------------------
// Emission: escapes, case marks, joiners

void append_escape(char32_t c, std::string& out) {
  static const char kHex[] = "0123456789ABCDEF";
  out.append(kEscape);
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(c >> shift) & 0xF];
}

// raw with the reserved marks (and, inside placeholders, spaces and controls) as ％XXXX.
void append_escaped(std::string_view raw, std::string& out) {
  if (raw.find(static_cast<char>(kMarkLead)) == kNpos) {
    out.append(raw);
    return;
  }
  size_t pos = 0;
  while (pos < raw.size()) {
    size_t next = pos;
    const char32_t c = next_code_point(raw, next);
    if (is_reserved(c)) {
      append_escape(c, out);
    } else {
      out.append(raw, pos, next - pos);
    }
    pos = next;
  }
}

void append_escaped_placeholder(std::string_view raw, std::string& out) {
  const std::string_view inner = raw.substr(
      kPlaceholderOpen.size(), raw.size() - kPlaceholderOpen.size() - kPlaceholderClose.size());
  out.append(kPlaceholderOpen);
  size_t pos = 0;
  while (pos < inner.size()) {
    size_t next = pos;
    const char32_t c = next_code_point(inner, next);
    if (is_reserved(c) || is_space_char(c) || is_control(c)) {
      append_escape(c, out);
    } else {
      out.append(inner, pos, next - pos);
    }
    pos = next;
  }
  out.append(kPlaceholderClose);
}

bool hex_value(char ch, unsigned& v) {
  if (ch >= '0' && ch <= '9') {
    v = static_cast<unsigned>(ch - '0');
  } else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f') {
    v = static_cast<unsigned>((ch | 0x20) - 'a' + 10);
  } else {
    return false;
  }
  return true;
}

void append_unescaped(std::string_view t, std::string& out) {
  size_t pos = 0;
  while (true) {
    const size_t e = t.find(kEscape, pos);
    if (e == kNpos) {
      out.append(t, pos, kNpos);
      return;
    }
    out.append(t, pos, e - pos);
    const size_t digits = e + kEscape.size();
    char32_t c = 0;
    bool ok = digits + 4 <= t.size();
    for (size_t k = 0; ok && k < 4; ++k) {
      unsigned v = 0;
      ok = hex_value(t[digits + k], v);
      c = (c << 4) | v;
    }
    if (ok && !(c >= 0xD800 && c <= 0xDFFF)) {
      append_utf8(out, c);
      pos = digits + 4;
    } else {
      out.append(kEscape);
      pos = digits;
    }
  }
}

// Upper case of the first code point, the rest unchanged.
void append_capitalized(std::string_view text, std::string& out) {
  if (text.empty()) return;
  size_t first_end = 0;
  next_code_point(text, first_end);
  append_upper(text.substr(0, first_end), out);
  out.append(text, first_end, kNpos);
}

// The case mark that restores raw from its lowercase form (stored in lowered): 0 when raw is
// already lowercase (or caseless), 'C' capitalized, 'U' all uppercase, '?' none of them.
char case_mark(std::string_view raw, std::string& lowered, std::string& tmp) {
  lowered.clear();
  append_lower(raw, lowered);
  if (lowered == raw) return 0;
  tmp.clear();
  append_capitalized(lowered, tmp);
  if (tmp == raw) return 'C';
  tmp.clear();
  append_upper(lowered, tmp);
  if (tmp == raw) return 'U';
  return '?';
}

void add_case_part(std::string_view raw, std::vector<CasePart>& parts, size_t& count) {
  Scratch& s = scratch();
  if (parts.size() <= count) parts.emplace_back();
  CasePart& part = parts[count++];
  part.original = raw;
  const char mark = case_mark(raw, part.text, s.cased);
  if (mark == '?') {
    part.text.assign(raw);
    part.mark = 0;
  } else {
    part.mark = mark;
  }
}

// Case parts of a word: the whole word when one mark restores it, else its case humps
// (McDonald → Mc Donald, iPhone → i Phone, HTMLParser → HTML Parser), each with its own mark,
// or kept as it is when no mark restores it.
size_t split_case(std::string_view word, std::vector<CasePart>& parts) {
  Scratch& s = scratch();
  size_t count = 0;
  if (parts.empty()) parts.emplace_back();
  CasePart& whole = parts[0];
  const char mark = case_mark(word, whole.text, s.cased);
  if (mark != '?') {
    whole.original = word;
    whole.mark = mark;
    return 1;
  }
  // Per code point: kUpper when lowercasing changes it, kMark for a combining mark (which
  // takes the case class of its base and never starts a part).
  constexpr char kUpper = 1, kMark = 2;
  s.cp_begin.clear();
  s.cp_flags.clear();
  size_t pos = 0;
  while (pos < word.size()) {
    s.cp_begin.push_back(pos);
    const char32_t c = next_code_point(word, pos);
    char flags;
    if (c < 0x80) {
      flags = c >= 'A' && c <= 'Z' ? kUpper : 0;
    } else if (is_mark(c)) {
      flags = static_cast<char>(kMark | (s.cp_flags.empty() ? 0 : (s.cp_flags.back() & kUpper)));
    } else {
      flags = changes_when_lowercased(c) ? kUpper : 0;
    }
    s.cp_flags.push_back(flags);
  }
  s.cp_begin.push_back(word.size());
  const size_t m = s.cp_flags.size();
  const auto up = [&](size_t i) { return (s.cp_flags[i] & kUpper) != 0; };
  const auto is_mark_at = [&](size_t i) { return (s.cp_flags[i] & kMark) != 0; };
  const auto lower_letter_at = [&](size_t i) {
    if (up(i) || is_mark_at(i)) return false;
    size_t p = s.cp_begin[i];
    const char32_t c = next_code_point(word, p);
    return c < 0x80 ? ascii_alpha(static_cast<unsigned char>(c)) : is_letter(c);
  };
  size_t part_begin = 0;
  for (size_t i = 1; i < m; ++i) {
    if (!up(i) || is_mark_at(i)) continue;
    const bool hump = !up(i - 1);
    const bool acronym_end = up(i - 1) && i + 1 < m && lower_letter_at(i + 1);
    if (hump || acronym_end) {
      add_case_part(word.substr(s.cp_begin[part_begin], s.cp_begin[i] - s.cp_begin[part_begin]),
                    parts, count);
      part_begin = i;
    }
  }
  add_case_part(word.substr(s.cp_begin[part_begin]), parts, count);
  return count;
}

class Emitter {
 public:
  explicit Emitter(std::string& out) : out_(out) {}

  // One token: [￭]escaped-text[￭][￨mark]
  void put(std::string_view text, bool lead, bool trail, char mark) {
    begin(lead);
    append_escaped(text, out_);
    end(trail, mark);
  }

  void put_placeholder(std::string_view raw, bool lead, bool trail) {
    begin(lead);
    append_escaped_placeholder(raw, out_);
    end(trail, 0);
  }

 private:
  void begin(bool lead) {
    if (!first_) out_ += ' ';
    first_ = false;
    if (lead) out_.append(kJoiner);
  }
  void end(bool trail, char mark) {
    if (trail) out_.append(kJoiner);
    if (mark) {
      out_.append(kFeatureSeparator);
      out_ += mark;
    }
  }

  std::string& out_;
  bool first_ = true;
};

// True when applying mark to text changes nothing (a caseless piece needs no mark).
bool mark_is_identity(std::string_view text, char mark, std::string& tmp) {
  tmp.clear();
  if (mark == 'U') {
    append_upper(text, tmp);
  } else {
    append_capitalized(text, tmp);
  }
  return tmp == text;
}

// BPE pieces of word in pieces (replaced). The pieces must spell the word: the round trip
// depends on it.
void bpe_encode(const Bpe& bpe, std::string_view word, Rng* rng, std::vector<std::string>& pieces) {
  pieces.clear();
  bpe.encode(word, pieces, rng);
  size_t pos = 0;
  for (const std::string& piece : pieces) {
    HEED_CHECK(word.compare(pos, piece.size(), piece) == 0, "BPE pieces must spell the word");
    pos += piece.size();
  }
  HEED_CHECK(pos == word.size(), "BPE pieces must spell the word");
  pieces.erase(std::remove_if(pieces.begin(), pieces.end(),
                              [](const std::string& piece) { return piece.empty(); }),
               pieces.end());
}

void emit_word(std::string_view word, bool lead, bool trail, const TokenizerOptions& o,
               const Bpe* bpe, Rng* rng, Emitter& emit) {
  if (!o.case_feature && !bpe) {
    emit.put(word, lead, trail, 0);
    return;
  }
  Scratch& s = scratch();
  const bool plain_word = !has_reserved_mark(word);  // BPE never splits escapes or marks
  if (!o.case_feature) {
    if (!plain_word) {
      emit.put(word, lead, trail, 0);
      return;
    }
    bpe_encode(*bpe, word, rng, s.bpe_pieces);
    const size_t n = s.bpe_pieces.size();
    for (size_t k = 0; k < n; ++k) {
      emit.put(s.bpe_pieces[k], lead && k == 0, k + 1 < n || trail, 0);
    }
    return;
  }
  const size_t part_count = split_case(word, s.parts);
  size_t sub_count = 0;
  const auto add_sub = [&](std::string_view text, char mark) {
    if (s.subs.size() <= sub_count) s.subs.emplace_back();
    SubToken& sub = s.subs[sub_count++];
    sub.text.assign(text);
    sub.mark = mark != 0 && mark_is_identity(text, mark, s.cased) ? 0 : mark;
  };
  for (size_t p = 0; p < part_count; ++p) {
    const CasePart& part = s.parts[p];
    if (!bpe || !plain_word) {
      add_sub(part.text, part.mark);
      continue;
    }
    bpe_encode(*bpe, part.text, rng, s.bpe_pieces);
    char mark = part.mark;
    if (mark == 'U' && !is_ascii(part.text)) {
      // Uppercasing piece by piece must give the part back (it does unless case mapping
      // depends on context); else the part is encoded as it is, without a mark.
      s.lowered.clear();
      for (const std::string& piece : s.bpe_pieces) append_upper(piece, s.lowered);
      if (s.lowered != part.original) {
        bpe_encode(*bpe, part.original, rng, s.bpe_pieces);
        mark = 0;
      }
    }
    for (size_t k = 0; k < s.bpe_pieces.size(); ++k) {
      add_sub(s.bpe_pieces[k], mark == 'U' || (mark == 'C' && k == 0) ? mark : 0);
    }
  }
  for (size_t k = 0; k < sub_count; ++k) {
    emit.put(s.subs[k].text, lead && k == 0, k + 1 < sub_count || trail, s.subs[k].mark);
  }
}

// The tokens emit_word can give for word under any BPE-dropout draw, appended to out: every
// possible piece of each part (Bpe::possible_pieces) marked as emit_word marks a piece at its
// place. Where emit_word's choice depends on the draw (an uppercase part whose pieces do not
// uppercase back), both choices' tokens are given.
void possible_word_tokens(std::string_view word, bool lead, bool trail, const TokenizerOptions& o,
                          const Bpe& bpe, std::vector<std::string>& out) {
  Scratch& s = scratch();
  const auto add = [&out](std::string_view text, bool first, bool last, bool lead_, bool trail_,
                          char mark) {
    std::string token;
    Emitter(token).put(text, lead_ && first, !last || trail_, mark);
    out.push_back(std::move(token));
  };
  std::vector<std::string_view> pieces;
  const bool plain_word = !has_reserved_mark(word);
  if (!o.case_feature) {
    if (!plain_word) return add(word, true, true, lead, trail, 0);
    bpe.possible_pieces(word, pieces);
    for (std::string_view piece : pieces) {
      const size_t begin = static_cast<size_t>(piece.data() - word.data());
      add(piece, begin == 0, begin + piece.size() == word.size(), lead, trail, 0);
    }
    return;
  }
  const size_t part_count = split_case(word, s.parts);
  const std::vector<CasePart>& parts = s.parts;
  std::string tmp;
  const auto sub_mark = [&tmp](std::string_view text, char mark) {
    return mark != 0 && mark_is_identity(text, mark, tmp) ? char{0} : mark;
  };
  for (size_t p = 0; p < part_count; ++p) {
    const CasePart& part = parts[p];
    const bool first_part = p == 0, last_part = p + 1 == part_count;
    if (!plain_word) {
      add(part.text, first_part, last_part, lead, trail, sub_mark(part.text, part.mark));
      continue;
    }
    const auto add_pieces = [&](std::string_view text, char mark) {
      pieces.clear();
      bpe.possible_pieces(text, pieces);
      for (std::string_view piece : pieces) {
        const size_t begin = static_cast<size_t>(piece.data() - text.data());
        const char piece_mark = mark == 'U' || (mark == 'C' && begin == 0) ? mark : 0;
        add(piece, first_part && begin == 0, last_part && begin + piece.size() == text.size(), lead,
            trail, sub_mark(piece, piece_mark));
      }
    };
    add_pieces(part.text, part.mark);
    if (part.mark == 'U' && !is_ascii(part.text)) add_pieces(part.original, 0);
  }
}

// Calls f(kind, raw text, lead, trail) for each piece of text, with the joiners it takes: on the
// punctuation side ("Hello ￭, world ￭!", "(￭ a ￭)", "2 ￭,￭ 000"); between two words (CJK,
// aggressive splits) on the second one.
template <class F>
void for_each_piece(std::string_view text, const std::vector<Piece>& pieces, F f) {
  const size_t n = pieces.size();
  for (size_t i = 0; i < n; ++i) {
    const Piece& p = pieces[i];
    const bool other = p.kind == Kind::kOther;
    const bool lead = p.glued && (other || pieces[i - 1].kind != Kind::kOther);
    const bool trail =
        other && i + 1 < n && pieces[i + 1].glued && pieces[i + 1].kind != Kind::kOther;
    f(p.kind, text.substr(p.begin, p.end - p.begin), lead, trail);
  }
}

void emit_whole(std::string_view raw, bool lead, bool trail, const TokenizerOptions& o,
                Emitter& emit) {
  if (!o.case_feature) {
    emit.put(raw, lead, trail, 0);
    return;
  }
  Scratch& s = scratch();
  const char mark = case_mark(raw, s.lowered, s.cased);
  if (mark == '?') {
    emit.put(raw, lead, trail, 0);
  } else {
    emit.put(s.lowered, lead, trail, mark);
  }
}

// ---------------------------------------------------------------------------------------------
// Detokenization

class Joiner {
 public:
  explicit Joiner(std::string& out) : out_(out) {}

  void add(std::string_view token) {
    if (token.empty()) return;
    char mark = 0;
    const size_t sep = kFeatureSeparator.size();
    if (token.size() > sep && (token.back() == 'C' || token.back() == 'U') &&
        token.compare(token.size() - sep - 1, sep, kFeatureSeparator) == 0) {
      mark = token.back();
      token.remove_suffix(sep + 1);
    }
    const bool lead = token.compare(0, kJoiner.size(), kJoiner) == 0;
    if (lead) token.remove_prefix(kJoiner.size());
    const bool trail = token.size() >= kJoiner.size() &&
                       token.compare(token.size() - kJoiner.size(), kJoiner.size(), kJoiner) == 0;
    if (trail) token.remove_suffix(kJoiner.size());
    if (!first_ && !lead && !trail_) out_ += ' ';
    first_ = false;
    trail_ = trail;
    if (!mark) {
      append_unescaped(token, out_);
      return;
    }
    Scratch& s = scratch();
    s.unescaped.clear();
    append_unescaped(token, s.unescaped);
    if (mark == 'U') {
      append_upper(s.unescaped, out_);
    } else {
      append_capitalized(s.unescaped, out_);
    }
  }

 private:
  std::string& out_;
  bool first_ = true;
  bool trail_ = false;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Options

void TokenizerOptions::validate() const {
  if (mode != TokenizeMode::kConservative && mode != TokenizeMode::kAggressive) {
    throw ConfigError("tokenizer mode must be conservative or aggressive");
  }
  if (normalization != Normalization::kNone && normalization != Normalization::kNfc &&
      normalization != Normalization::kNfkc) {
    throw ConfigError("tokenizer normalization must be nfc, nfkc or none");
  }
  if (lowercase && case_feature) {
    throw ConfigError(
        "lowercase and case-feature exclude each other: lowercase drops the case that "
        "case-feature keeps in case marks");
  }
}

std::string_view to_string(TokenizeMode mode) {
  return mode == TokenizeMode::kAggressive ? "aggressive" : "conservative";
}

std::string_view to_string(Normalization form) {
  switch (form) {
    case Normalization::kNone:
      return "none";
    case Normalization::kNfc:
      return "nfc";
    case Normalization::kNfkc:
      return "nfkc";
  }
  return "?";
}

TokenizeMode parse_tokenize_mode(std::string_view name) {
  if (name == "conservative") return TokenizeMode::kConservative;
  if (name == "aggressive") return TokenizeMode::kAggressive;
  throw ConfigError("unknown tokenization mode '" + std::string(name) +
                    "' (valid: conservative, aggressive)");
}

Normalization parse_normalization(std::string_view name) {
  if (name == "nfc") return Normalization::kNfc;
  if (name == "nfkc") return Normalization::kNfkc;
  if (name == "none") return Normalization::kNone;
  throw ConfigError("unknown normalization '" + std::string(name) + "' (valid: nfc, nfkc, none)");
}

// ---------------------------------------------------------------------------------------------
// Tokenizer

Tokenizer::Tokenizer(TokenizerOptions options, std::shared_ptr<const Bpe> bpe)
    : options_(options), bpe_(std::move(bpe)) {
  options_.validate();
}

void Tokenizer::append_tokenized(std::string_view line, std::string& out, Rng* rng) const {
  Scratch& s = scratch();
  normalize_into(line, options_, s.normalized);
  const std::string_view text = s.normalized;
  std::vector<Piece>& pieces = s.pieces;
  pieces.clear();
  segment(text, options_, pieces);
  Emitter emit(out);
  for_each_piece(text, pieces, [&](Kind kind, std::string_view raw, bool lead, bool trail) {
    switch (kind) {
      case Kind::kPlaceholder:
        emit.put_placeholder(raw, lead, trail);
        break;
      case Kind::kWord:
        emit_word(raw, lead, trail, options_, bpe_.get(), rng, emit);
        break;
      case Kind::kOther:
      case Kind::kUrl:
        emit_whole(raw, lead, trail, options_, emit);
        break;
    }
  });
}

void Tokenizer::append_possible_tokens(std::string_view line, std::vector<std::string>& out) const {
  if (!bpe_) {
    for (std::string& token : tokenize(line)) out.push_back(std::move(token));
    return;
  }
  Scratch& s = scratch();
  normalize_into(line, options_, s.normalized);
  const std::string text = s.normalized;  // a copy: what the calls below do with the scratch
  std::vector<Piece> pieces;
  segment(text, options_, pieces);
  for_each_piece(text, pieces, [&](Kind kind, std::string_view raw, bool lead, bool trail) {
    if (kind == Kind::kWord) return possible_word_tokens(raw, lead, trail, options_, *bpe_, out);
    std::string token;
    Emitter emit(token);
    if (kind == Kind::kPlaceholder) {
      emit.put_placeholder(raw, lead, trail);
    } else {
      emit_whole(raw, lead, trail, options_, emit);
    }
    out.push_back(std::move(token));
  });
}

std::string Tokenizer::tokenize_line(std::string_view line, Rng* rng) const {
  std::string out;
  append_tokenized(line, out, rng);
  return out;
}

std::vector<std::string> Tokenizer::tokenize(std::string_view line, Rng* rng) const {
  Scratch& s = scratch();
  s.line.clear();
  append_tokenized(line, s.line, rng);
  std::vector<std::string> tokens;
  size_t pos = 0;
  while (pos < s.line.size()) {
    size_t end = s.line.find(' ', pos);
    if (end == kNpos) end = s.line.size();
    tokens.emplace_back(s.line, pos, end - pos);
    pos = end + 1;
  }
  return tokens;
}

std::string Tokenizer::detokenize(const std::vector<std::string>& tokens) const {
  std::string out;
  Joiner joiner(out);
  for (const std::string& token : tokens) joiner.add(token);
  return out;
}

std::string Tokenizer::detokenize_line(std::string_view line) const {
  std::string out;
  Joiner joiner(out);
  size_t pos = 0;
  while (pos < line.size()) {
    size_t end = line.find(' ', pos);
    if (end == kNpos) end = line.size();
    joiner.add(line.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

std::string Tokenizer::normalize(std::string_view line) const {
  std::string out;
  normalize_into(line, options_, out);
  return out;
}

std::vector<int> word_indices(const std::vector<std::string>& tokens) {
  // A case mark ("lo￭￨U") follows the joiner: look before it.
  const auto without_case = [](std::string_view token) {
    const size_t mark = token.rfind(kFeatureSeparator);
    return mark == std::string_view::npos ? token : token.substr(0, mark);
  };
  std::vector<int> index(tokens.size());
  int word = -1;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const bool joined = i > 0 && (ends_with(without_case(tokens[i - 1]), kJoiner) ||
                                  starts_with(tokens[i], kJoiner));
    if (!joined) ++word;
    index[i] = word;
  }
  return index;
}

}  // namespace heed::text
