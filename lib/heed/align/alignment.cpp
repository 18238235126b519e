#include "heed/align/alignment.h"

#include <algorithm>

#include "heed/common/error.h"
#include "heed/common/strings.h"

namespace heed::align {
namespace {

bool parse_int(std::string_view s, int& value) {
  if (s.empty() || s.size() > 9) return false;
  value = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  return true;
}

// "i-j" or "ipj": the two numbers and the separator; false if malformed.
bool parse_link(std::string_view item, int& a, int& b, char& separator) {
  const size_t pos = item.find_first_of("-p");
  if (pos == std::string_view::npos) return false;
  separator = item[pos];
  return parse_int(item.substr(0, pos), a) && parse_int(item.substr(pos + 1), b);
}

}  // namespace

void normalize(Alignment& links) {
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
}

std::string to_pharaoh(const Alignment& links) {
  Alignment sorted = links;
  normalize(sorted);
  std::string out;
  for (const Link& l : sorted) {
    if (!out.empty()) out += ' ';
    out += std::to_string(l.source) + "-" + std::to_string(l.target);
  }
  return out;
}

Alignment parse_pharaoh(std::string_view text, const std::string& file, long long line) {
  Alignment links;
  for (std::string_view item : split_whitespace(text)) {
    int a = 0, b = 0;
    char separator = 0;
    if (!parse_link(item, a, b, separator) || separator != '-') {
      throw DataError(
          at_line(file, line, "expected Pharaoh links 'i-j', got '" + std::string(item) + "'"));
    }
    links.push_back({a, b});
  }
  normalize(links);
  return links;
}

GoldAlignment parse_talp(std::string_view text, const std::string& file, long long line,
                         bool one_based) {
  GoldAlignment gold;
  const int base = one_based ? 1 : 0;
  for (std::string_view item : split_whitespace(text)) {
    int a = 0, b = 0;
    char separator = 0;
    if (!parse_link(item, a, b, separator) || a < base || b < base) {
      throw DataError(at_line(file, line,
                              "expected gold links 'i-j' (sure) or 'ipj' (possible)" +
                                  std::string(one_based ? ", 1-based" : "") + ", got '" +
                                  std::string(item) + "'"));
    }
    const Link link{a - base, b - base};
    if (separator == '-') gold.sure.push_back(link);
    gold.possible.push_back(link);
  }
  normalize(gold.sure);
  normalize(gold.possible);
  return gold;
}

Alignment transpose(const Alignment& links) {
  Alignment out;
  out.reserve(links.size());
  for (const Link& l : links) out.push_back({l.target, l.source});
  normalize(out);
  return out;
}

GoldAlignment transpose(const GoldAlignment& gold) {
  return {transpose(gold.sure), transpose(gold.possible)};
}

}  // namespace heed::align
