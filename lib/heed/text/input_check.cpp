#include "heed/text/input_check.h"

#include <spdlog/spdlog.h>

#include <cstring>

#include "heed/common/error.h"
#include "heed/text/unicode.h"

namespace heed::text {

OnInvalid parse_on_invalid(const std::string& value, bool allow_skip) {
  if (value == "error") return OnInvalid::kError;
  if (value == "replace") return OnInvalid::kReplace;
  if (value == "skip" && allow_skip) return OnInvalid::kSkip;
  throw ConfigError("--on-invalid: unknown value '" + value + "' (expected error, replace" +
                    (allow_skip ? ", skip)" : ")"));
}

std::optional<size_t> find_invalid_text(std::string_view text) {
  const void* nul = std::memchr(text.data(), '\0', text.size());
  // Only the part before a NUL needs the UTF-8 scan.
  const size_t nul_at = nul ? size_t(static_cast<const char*>(nul) - text.data()) : text.size();
  if (auto bad = find_invalid_utf8(text.substr(0, nul_at))) return bad;
  if (nul) return nul_at;
  return std::nullopt;
}

std::string describe_invalid_text(std::string_view text, size_t offset) {
  const std::string where = " at byte " + std::to_string(offset + 1);
  if (offset < text.size() && text[offset] == '\0') return "NUL byte" + where;
  return "invalid UTF-8" + where;
}

std::string replace_invalid_text(std::string_view text) {
  std::string repaired = replace_invalid_utf8(text);
  if (repaired.find('\0') == std::string::npos) return repaired;
  std::string out;
  out.reserve(repaired.size() + 8);
  for (char c : repaired) {
    if (c == '\0') {
      out += "\xEF\xBF\xBD";
    } else {
      out += c;
    }
  }
  return out;
}

std::string_view checked_line(std::string_view line, OnInvalid policy, const std::string& file,
                              long long line_number, std::string& storage) {
  const auto bad = find_invalid_text(line);
  if (!bad) return line;
  const std::string problem = describe_invalid_text(line, *bad);
  switch (policy) {
    case OnInvalid::kError:
      throw DataError(at_line(file, line_number, problem + " (see --on-invalid)"));
    case OnInvalid::kReplace:
      spdlog::warn("[input] {}", at_line(file, line_number, problem + ": replaced by U+FFFD"));
      storage = replace_invalid_text(line);
      return storage;
    case OnInvalid::kSkip:
      spdlog::warn("[input] {}", at_line(file, line_number, problem + ": line left empty"));
      return {};
  }
  return {};
}

}  // namespace heed::text
