#include "heed/text/vocab.h"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <thread>

#include "heed/common/error.h"
#include "heed/io/line_reader.h"
#include "heed/text/markers.h"

namespace heed::text {
namespace {

// Splits lines over threads and merges the per-thread counts.
template <typename KeyOf>
WordCounts count_with(const std::vector<std::string>& paths, int threads, KeyOf key_of) {
  const size_t workers = static_cast<size_t>(std::max(1, threads));
  constexpr size_t kBatch = 1 << 15;
  std::vector<WordCounts> partial(workers);
  std::vector<std::string> lines(kBatch);
  for (const auto& path : paths) {
    io::LineReader reader(path);
    while (true) {
      size_t n = 0;
      while (n < kBatch && reader.next(lines[n])) ++n;
      if (n == 0) break;
      auto work = [&](size_t w) {
        WordCounts& counts = partial[w];
        for (size_t i = n * w / workers; i < n * (w + 1) / workers; ++i) {
          std::string_view line = lines[i];
          size_t pos = 0;
          while (pos < line.size()) {
            size_t end = line.find(' ', pos);
            if (end == std::string_view::npos) end = line.size();
            if (end > pos) {
              std::string_view key = key_of(line.substr(pos, end - pos));
              if (!key.empty()) {
                auto it = counts.find(std::string(key));
                if (it == counts.end()) counts.emplace(std::string(key), 1);
                else ++it->second;
              }
            }
            pos = end + 1;
          }
        }
      };
      std::vector<std::thread> pool;
      for (size_t w = 1; w < workers; ++w) pool.emplace_back(work, w);
      work(0);
      for (auto& t : pool) t.join();
      if (n < kBatch) break;
    }
  }
  WordCounts total = std::move(partial[0]);
  for (size_t w = 1; w < workers; ++w) {
    for (auto& [word, count] : partial[w]) total[word] += count;
  }
  return total;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError("cannot open '" + path + "': " + errno_message(errno));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

}  // namespace

std::string_view bpe_word_of(std::string_view token) {
  if (starts_with(token, kPlaceholderOpen)) return {};
  // A case mark is the very last thing: [￭]text[￭][￨C|￨U].
  if (token.size() > kFeatureSeparator.size() + 1 &&
      token.substr(token.size() - kFeatureSeparator.size() - 1, kFeatureSeparator.size()) ==
          kFeatureSeparator) {
    token.remove_suffix(kFeatureSeparator.size() + 1);
  }
  if (starts_with(token, kJoiner)) token.remove_prefix(kJoiner.size());
  if (ends_with(token, kJoiner)) token.remove_suffix(kJoiner.size());
  return token;
}

WordCounts count_tokens(const std::vector<std::string>& paths, int threads) {
  return count_with(paths, threads, [](std::string_view token) { return token; });
}

WordCounts count_words(const std::vector<std::string>& paths, int threads) {
  return count_with(paths, threads, bpe_word_of);
}

CountList sorted_counts(const WordCounts& counts, const VocabCountOptions& options) {
  CountList list;
  list.reserve(counts.size());
  for (const auto& [token, count] : counts) {
    if (count >= options.min_count) list.emplace_back(token, count);
  }
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (options.max_size > 0 && list.size() > static_cast<size_t>(options.max_size)) {
    list.resize(static_cast<size_t>(options.max_size));
  }
  return list;
}

std::string format_counts(const WordCounts& counts, const VocabCountOptions& options) {
  std::string out;
  for (const auto& [token, count] : sorted_counts(counts, options)) {
    out += token;
    out += '\t';
    out += std::to_string(count);
    out += '\n';
  }
  return out;
}

CountList parse_counts(std::string_view text, const std::string& name) {
  CountList list;
  size_t pos = 0;
  long long line_number = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t tab = line.find('\t');
    if (tab == 0 || tab == std::string_view::npos || line.find('\t', tab + 1) != std::string_view::npos) {
      throw FormatError(at_line(name, line_number, "expected 'token<TAB>count'"));
    }
    std::string_view number = line.substr(tab + 1);
    long long count = 0;
    bool ok = !number.empty();
    for (char c : number) {
      ok = ok && c >= '0' && c <= '9';
      if (ok) count = count * 10 + (c - '0');
    }
    if (!ok) throw FormatError(at_line(name, line_number, "count '" + std::string(number) + "' is not a number"));
    list.emplace_back(std::string(line.substr(0, tab)), count);
  }
  return list;
}

CountList load_counts(const std::string& path) { return parse_counts(read_file(path), path); }

Vocab::Vocab() {
  for (const char* special : kSpecials) add(special, 0);
}

void Vocab::add(const std::string& token, long long count) {
  if (ids_.count(token)) return;
  ids_.emplace(token, static_cast<int32_t>(tokens_.size()));
  tokens_.push_back(token);
  counts_.push_back(count);
}

Vocab Vocab::from_counts(const CountList& counts, long long max_size, long long min_count) {
  Vocab vocab;
  for (const auto& [token, count] : counts) {
    if (max_size > 0 && vocab.size() >= max_size) break;
    if (count < min_count) continue;
    vocab.add(token, count);
  }
  return vocab;
}

Vocab Vocab::load(const std::string& path, long long max_size, long long min_count) {
  return from_counts(load_counts(path), max_size, min_count);
}

int32_t Vocab::id(std::string_view token) const {
  auto it = ids_.find(std::string(token));
  return it == ids_.end() ? kUnkId : it->second;
}

bool Vocab::contains(std::string_view token) const { return ids_.count(std::string(token)) > 0; }

const std::string& Vocab::token(int32_t id) const {
  if (id < 0 || id >= size()) throw InternalError("vocabulary id " + std::to_string(id) + " out of range");
  return tokens_[static_cast<size_t>(id)];
}

std::string Vocab::to_string() const {
  std::string out;
  for (size_t i = 0; i < tokens_.size(); ++i) {
    out += tokens_[i];
    out += '\t';
    out += std::to_string(counts_[i]);
    out += '\n';
  }
  return out;
}

Vocab Vocab::from_string(std::string_view text, const std::string& name) {
  CountList list = parse_counts(text, name);
  for (size_t i = 0; i < 4; ++i) {
    if (list.size() <= i || list[i].first != kSpecials[i]) {
      throw FormatError("vocabulary '" + name + "' does not start with the special tokens");
    }
  }
  Vocab vocab;
  for (size_t i = 4; i < list.size(); ++i) {
    if (vocab.contains(list[i].first)) {
      throw FormatError(at_line(name, static_cast<long long>(i + 1), "duplicate token '" + list[i].first + "'"));
    }
    vocab.add(list[i].first, list[i].second);
  }
  return vocab;
}

}  // namespace heed::text
