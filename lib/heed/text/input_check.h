// What every tool that reads text does with a line that is not text: ill-formed UTF-8 or a NUL
// byte. NUL never occurs in text; it means UTF-16, a binary file or corruption, and C-string
// tools downstream would cut the line at it, so it is treated exactly like ill-formed UTF-8.
// One policy for heed-tokenize (all modes), heed-translate and heed-score (--on-invalid).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace heed::text {

enum class OnInvalid {
  kError,    // DataError "file:line: invalid UTF-8 at byte N" (exit 65)
  kReplace,  // each ill-formed sequence and each NUL becomes U+FFFD, with a warning
  kSkip,     // the line is left empty, with a warning (heed-tokenize only)
};

// "error", "replace" or (with allow_skip) "skip"; ConfigError naming --on-invalid otherwise.
OnInvalid parse_on_invalid(const std::string& value, bool allow_skip);

// Byte offset of the first byte that is not text: the first byte of an ill-formed UTF-8
// sequence (find_invalid_utf8) or a NUL. nullopt when text is well-formed and NUL-free.
std::optional<size_t> find_invalid_text(std::string_view text);

// "invalid UTF-8 at byte N" or "NUL byte at byte N" (N 1-based) for the offset that
// find_invalid_text returned.
std::string describe_invalid_text(std::string_view text, size_t offset);

// text with each maximal subpart of an ill-formed sequence and each NUL replaced by U+FFFD.
std::string replace_invalid_text(std::string_view text);

// Line line_number of file, as the tools must use it under policy: line itself when it is
// text; otherwise kError throws DataError ("file:line: invalid UTF-8 at byte N (see
// --on-invalid)"), kReplace returns the repaired line (kept in storage) and kSkip an empty
// one, each after one warning naming file:line. Thread-safe.
std::string_view checked_line(std::string_view line, OnInvalid policy, const std::string& file,
                              long long line_number, std::string& storage);

}  // namespace heed::text
