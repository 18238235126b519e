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

// Calls fn(line number, line) for each line of text, without its "\n" and a "\r" before it.
template <class Fn>
void for_each_line(std::string_view text, Fn fn) {
  long long line = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view content = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (!content.empty() && content.back() == '\r') content.remove_suffix(1);
    fn(++line, content);
  }
}

// A confidence: a plain decimal number.
bool is_number(std::string_view s) {
  const size_t dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  const auto digits = [](std::string_view d) {
    return std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  return !s.empty() && s != "." && digits(whole) && digits(fraction);
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

std::string to_talp(const GoldAlignment& gold, bool one_based) {
  Alignment sure = gold.sure, all = gold.sure;
  all.insert(all.end(), gold.possible.begin(), gold.possible.end());
  normalize(sure);
  normalize(all);
  const int base = one_based ? 1 : 0;
  std::string out;
  for (const Link& l : all) {
    if (!out.empty()) out += ' ';
    const bool is_sure = std::binary_search(sure.begin(), sure.end(), l);
    out +=
        std::to_string(l.source + base) + (is_sure ? "-" : "p") + std::to_string(l.target + base);
  }
  return out;
}

std::vector<GoldAlignment> parse_talp_lines(std::string_view text, const std::string& file,
                                            bool one_based) {
  std::vector<GoldAlignment> gold;
  for_each_line(text, [&](long long line, std::string_view content) {
    gold.push_back(parse_talp(content, file, line, one_based));
  });
  return gold;
}

std::vector<GoldAlignment> parse_naacl(std::string_view text, const std::string& file,
                                       long long sentences) {
  std::vector<GoldAlignment> gold(static_cast<size_t>(std::max(sentences, 0LL)));
  for_each_line(text, [&](long long line, std::string_view content) {
    const std::vector<std::string_view> fields = split_whitespace(content);
    if (fields.empty()) return;
    const auto bad = [&](const std::string& what) {
      return DataError(at_line(file, line, what + ", got '" + std::string(trim(content)) + "'"));
    };
    // After "sentence i j": S or P, then a confidence, each optional.
    size_t next = 3;
    bool sure = true;
    if (next < fields.size() && (fields[next] == "S" || fields[next] == "P")) {
      sure = fields[next++] == "S";
    }
    if (next < fields.size() && is_number(fields[next])) ++next;
    int sentence = 0, source = 0, target = 0;
    if (fields.size() < 3 || next != fields.size() || !parse_int(fields[0], sentence) ||
        !parse_int(fields[1], source) || !parse_int(fields[2], target) || sentence == 0) {
      throw bad("expected NAACL gold 'sentence i j [S|P] [confidence]' (1-based)");
    }
    if (sentence > sentences) {
      throw DataError(at_line(file, line,
                              "sentence " + std::to_string(sentence) + " is beyond the " +
                                  std::to_string(sentences) + " sentences scored"));
    }
    if (source == 0 || target == 0) return;  // a link to NULL
    GoldAlignment& g = gold[static_cast<size_t>(sentence - 1)];
    const Link link{source - 1, target - 1};
    if (sure) g.sure.push_back(link);
    g.possible.push_back(link);
  });
  for (GoldAlignment& g : gold) {
    normalize(g.sure);
    normalize(g.possible);
  }
  return gold;
}

GoldFormat detect_gold_format(std::string_view text) {
  GoldFormat format = GoldFormat::kTalp;
  bool decided = false;
  for_each_line(text, [&](long long, std::string_view content) {
    const std::vector<std::string_view> fields = split_whitespace(content);
    if (decided || fields.empty()) return;
    int number = 0;
    format = parse_int(fields[0], number) ? GoldFormat::kNaacl : GoldFormat::kTalp;
    decided = true;
  });
  return format;
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
