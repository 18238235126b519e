#include "heed/decode/shortlist.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>

#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/io/line_reader.h"
#include "heed/text/input_check.h"

namespace heed::decode {

void ShortlistOptions::validate() const {
  if (frequent < 0) throw ConfigError("--shortlist-frequent must not be negative");
  if (best < 0) throw ConfigError("--shortlist-best must not be negative");
  if (columns_multiple < 1) throw ConfigError("the shortlist's columns multiple must be positive");
}

namespace {

// How to turn Marian's text shortlist into heed's table: the columns swapped, TABs between
// them, its NULL entries dropped.
constexpr const char* kFromMarian =
    "awk -v OFS='\\t' '$1 != \"NULL\" && $2 != \"NULL\" {print $2, $1, $3}'";

// Marian's binary shortlist (marian-conv --shortlist) opens with this 64-bit number, written
// little-endian.
constexpr unsigned char kMarianBinaryMagic[8] = {0xf5, 0x17, 0x34, 0x01, 0xd5, 0x48, 0x1a, 0xf1};

bool is_probability(std::string_view number) {
  double probability = -1;
  const auto [rest, error] =
      std::from_chars(number.data(), number.data() + number.size(), probability);
  return error == std::errc() && rest == number.data() + number.size() && probability >= 0 &&
         probability <= 1;
}

// A line of Marian's text shortlist: "target source probability", space-separated.
bool is_marian_line(std::string_view line) {
  if (line.find('\t') != std::string_view::npos) return false;
  const std::vector<std::string_view> fields = split_whitespace(line);
  return fields.size() == 3 && is_probability(fields[2]);
}

}  // namespace

LexicalTable LexicalTable::parse(std::string_view text, const std::string& name) {
  if (text.size() >= sizeof kMarianBinaryMagic &&
      std::equal(std::begin(kMarianBinaryMagic), std::end(kMarianBinaryMagic), text.begin(),
                 [](unsigned char magic, char byte) { return magic == (unsigned char)byte; })) {
    throw DataError(at_line(
        name, 1,
        "a binary Marian shortlist (marian-conv --shortlist); heed reads a lexical table of "
        "'source<TAB>target<TAB>probability' text lines: convert Marian's text shortlist, the "
        "one marian-conv read (" +
            std::string(kFromMarian) +
            " lex.s2t > table.tsv), or write one with heed-align ibm2 "
            "--lexical-table"));
  }
  std::map<std::string, std::vector<Translation>, std::less<>> by_word;
  io::TextLines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    if (line.empty()) continue;
    const auto refuse = [&](const std::string& what) {
      throw DataError(at_line(name, lines.line_number(), what));
    };
    if (auto bad = text::find_invalid_text(line)) refuse(text::describe_invalid_text(line, *bad));
    const size_t tab1 = line.find('\t');
    const size_t tab2 = tab1 == std::string_view::npos ? tab1 : line.find('\t', tab1 + 1);
    if (tab2 == std::string_view::npos || line.find('\t', tab2 + 1) != std::string_view::npos) {
      if (is_marian_line(line)) {
        refuse(
            "space-separated, as Marian's lexical shortlist writes 'target source probability'; "
            "heed reads "
            "'source<TAB>target<TAB>probability', the source word first: convert with " +
            std::string(kFromMarian) + " " + name + " > table.tsv");
      }
      refuse("expected 'source<TAB>target<TAB>probability'");
    }
    const std::string_view source = line.substr(0, tab1);
    const std::string_view target = line.substr(tab1 + 1, tab2 - tab1 - 1);
    const std::string_view number = line.substr(tab2 + 1);
    if (source.empty() || target.empty()) refuse("empty word");
    if (!is_probability(number)) {
      refuse("the probability '" + std::string(number) + "' is not a number in [0, 1]");
    }
    double probability = 0;
    std::from_chars(number.data(), number.data() + number.size(), probability);
    auto found = by_word.find(source);
    if (found == by_word.end()) {
      found = by_word.emplace(std::string(source), std::vector<Translation>()).first;
    }
    found->second.push_back({std::string(target), static_cast<float>(probability)});
  }
  LexicalTable table;
  table.entries_.reserve(by_word.size());
  for (auto& [word, translations] : by_word) {
    std::sort(translations.begin(), translations.end(),
              [](const Translation& a, const Translation& b) {
                if (a.probability != b.probability) return a.probability > b.probability;
                return a.word < b.word;
              });
    table.entries_.emplace_back(word, std::move(translations));
  }
  return table;
}

LexicalTable LexicalTable::load(const std::string& path) {
  return parse(io::read_whole_file(path), path);
}

const std::vector<LexicalTable::Translation>& LexicalTable::translations(
    const std::string& source) const {
  static const std::vector<Translation> kNone;
  const auto found = std::lower_bound(
      entries_.begin(), entries_.end(), source,
      [](const auto& entry, const std::string& word) { return entry.first < word; });
  return found != entries_.end() && found->first == source ? found->second : kNone;
}

Shortlist::Shortlist(const LexicalTable& table, const text::Vocab& source_vocab,
                     const text::Vocab& target_vocab, const ShortlistOptions& options)
    : target_size_(target_vocab.size()),
      always_(static_cast<int32_t>(std::min<int64_t>(
          target_vocab.size(), int64_t{text::Vocab::kSpecialCount} + options.frequent))),
      columns_multiple_(options.columns_multiple),
      translations_(static_cast<size_t>(source_vocab.size())) {
  options.validate();
  for (int32_t id = 0; id < source_vocab.size(); ++id) {
    std::vector<int32_t>& best = translations_[static_cast<size_t>(id)];
    for (const LexicalTable::Translation& t : table.translations(source_vocab.token(id))) {
      if (static_cast<int>(best.size()) == options.best) break;
      if (target_vocab.contains(t.word)) best.push_back(target_vocab.id(t.word));
    }
  }
}

std::vector<int32_t> Shortlist::candidates(const std::vector<int32_t>& source_ids) const {
  std::vector<char> chosen(static_cast<size_t>(target_size_), 0);
  std::fill(chosen.begin(), chosen.begin() + always_, 1);
  for (int32_t source : source_ids) {
    if (source < 0 || static_cast<size_t>(source) >= translations_.size()) {
      throw InternalError("shortlist: source id " + std::to_string(source) +
                          " outside the vocabulary");
    }
    for (int32_t target : translations_[static_cast<size_t>(source)]) {
      chosen[static_cast<size_t>(target)] = 1;
    }
  }
  int64_t count = std::count(chosen.begin(), chosen.end(), 1);
  const int64_t wanted = std::min<int64_t>(
      target_size_, (count + columns_multiple_ - 1) / columns_multiple_ * columns_multiple_);
  for (size_t id = static_cast<size_t>(always_); count < wanted; ++id) {
    if (!chosen[id]) {
      chosen[id] = 1;
      ++count;
    }
  }
  std::vector<int32_t> ids;
  ids.reserve(static_cast<size_t>(count));
  for (int32_t id = 0; id < target_size_; ++id) {
    if (chosen[static_cast<size_t>(id)]) ids.push_back(id);
  }
  return ids;
}

}  // namespace heed::decode
