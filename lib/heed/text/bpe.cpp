#include "heed/text/bpe.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <unordered_map>

#include "heed/common/error.h"
#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"
#include "heed/text/input_check.h"
#include "heed/text/utf8.h"

namespace heed::text {
namespace {

constexpr std::string_view kVersionHeader = "#version:";
constexpr int32_t kNoRank = std::numeric_limits<int32_t>::max();

uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

// Piece lengths are cached as LEB128 varints in a std::string: one byte per piece shorter
// than 128 bytes, so most words fit in the string's inline buffer.
void append_varint(std::string& out, uint32_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

template <typename F>
void for_each_varint(std::string_view in, F&& f) {
  uint32_t value = 0;
  int shift = 0;
  for (char c : in) {
    const auto byte = static_cast<unsigned char>(c);
    value |= static_cast<uint32_t>(byte & 0x7f) << shift;
    if (byte & 0x80) {
      shift += 7;
    } else {
      f(value);
      value = 0;
      shift = 0;
    }
  }
}

// A uniform draw in [0, 1) that does not depend on the standard library's distributions, so
// a seed gives the same dropout everywhere.
double uniform01(Rng& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// Per-thread working memory of the segmentation loop.
struct Scratch {
  std::vector<int32_t> ids;    // symbol ids (-1: a character the codes do not know)
  std::vector<uint32_t> lens;  // bytes of the word each symbol covers ("</w>" is not counted)
  std::vector<int32_t> ranks;  // ranks[i]: merge rank of (ids[i], ids[i+1]), kNoRank if none
  std::vector<uint8_t> fresh;  // the symbol was made by the last merge
  std::vector<uint8_t> kept;   // BPE-dropout: the pair survived this step
  std::string key;             // lookup buffer
  std::string lengths;         // varint piece lengths of the last segmentation
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// Per-thread direct-mapped cache in front of the shared one: frequent words are found
// without taking a lock. Entries carry the id of the Bpe that made them.
struct LocalEntry {
  uint64_t owner = 0;
  std::string word;
  std::string lengths;
};
constexpr size_t kLocalEntries = 8192;

std::vector<LocalEntry>& local_cache() {
  thread_local std::vector<LocalEntry> entries(kLocalEntries);
  return entries;
}

std::atomic<uint64_t> next_owner{1};

}  // namespace

// ---------------------------------------------------------------------------------------
// Codes files

BpeCodes BpeCodes::load(const std::string& path) {
  BpeCodes codes = parse(io::read_whole_file(path), path);
  // A codes file without a merge (an empty file given by mistake) would leave every word in
  // characters, silently.
  if (codes.merges_.empty()) {
    throw FormatError(path +
                      ": no merges (an empty BPE codes file leaves every word in characters)");
  }
  return codes;
}

BpeCodes BpeCodes::parse(std::string_view text, const std::string& name) {
  BpeCodes codes;
  codes.version_ = BpeVersion::k01;  // subword-nmt reads a file without header as 0.1
  text = io::without_bom(text);
  size_t pos = 0;
  long long line_number = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    // Every CR before the line end goes ("\r\r\n" from a doubled CRLF conversion): a symbol
    // ending in CR would be written back as a line end and read as another merge.
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (auto bad = find_invalid_text(line)) {
      throw FormatError(at_line(name, line_number, describe_invalid_text(line, *bad)));
    }
    if (line_number == 1 && line.substr(0, kVersionHeader.size()) == kVersionHeader) {
      std::string_view version = line.substr(kVersionHeader.size());
      while (!version.empty() && version.front() == ' ') version.remove_prefix(1);
      while (!version.empty() && version.back() == ' ') version.remove_suffix(1);
      if (version == "0.2") {
        codes.version_ = BpeVersion::k02;
      } else if (version != "0.1") {
        throw FormatError(at_line(
            name, line_number,
            "unsupported BPE codes version '" + std::string(version) + "' (expected 0.1 or 0.2)"));
      }
      continue;
    }
    if (line.empty()) continue;
    const size_t space = line.find(' ');
    if (space == 0 || space == std::string_view::npos || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string_view::npos) {
      throw FormatError(
          at_line(name, line_number, "expected a merge 'LEFT RIGHT' (two symbols, one space)"));
    }
    codes.merges_.push_back(
        {std::string(line.substr(0, space)), std::string(line.substr(space + 1))});
  }
  return codes;
}

std::string BpeCodes::to_string() const {
  std::string out = version_ == BpeVersion::k02 ? "#version: 0.2\n" : "#version: 0.1\n";
  for (const auto& m : merges_) {
    out += m.left;
    out += ' ';
    out += m.right;
    out += '\n';
  }
  return out;
}

void BpeCodes::save(const std::string& path) const {
  io::write_file_atomically(path, to_string());
}

// ---------------------------------------------------------------------------------------
// Segmentation

struct Bpe::Impl {
  BpeCodes codes;
  BpeOptions options;
  uint64_t owner = next_owner.fetch_add(1);
  bool end_of_word_symbol = false;  // 0.1: "</w>" is a symbol of its own

  // Symbols are interned; a merge is (left id, right id) → rank, and rank → merged id.
  std::unordered_map<std::string, int32_t> symbol_ids;
  std::unordered_map<uint64_t, int32_t> ranks;
  std::vector<int32_t> merged_by_rank;
  std::vector<uint8_t> is_merged;          // by symbol id: the result of a merge
  size_t longest_merged = 0;               // bytes of the longest merge result, "</w>" not counted
  std::array<int32_t, 128> ascii_inner{};  // id of an ASCII character inside a word
  std::array<int32_t, 128> ascii_final{};  // ... at the end of a word (0.2: with "</w>")
  int32_t end_of_word = -1;

  // The shared cache: word → varint piece lengths, in shards with a lock each. A full shard
  // is emptied (frequent words come back at once; the cost is a few recomputations).
  static constexpr size_t kShards = 64;
  struct Shard {
    std::mutex mutex;
    std::unordered_map<std::string, std::string> words;
  };
  size_t shard_capacity = 0;
  mutable std::array<Shard, kShards> shards;

  int32_t intern(const std::string& symbol) {
    return symbol_ids.emplace(symbol, static_cast<int32_t>(symbol_ids.size())).first->second;
  }

  int32_t find(std::string_view symbol, std::string& buffer) const {
    buffer.assign(symbol);
    auto it = symbol_ids.find(buffer);
    return it == symbol_ids.end() ? -1 : it->second;
  }

  int32_t rank_of(int32_t left, int32_t right) const {
    if (left < 0 || right < 0) return kNoRank;
    auto it = ranks.find(pair_key(left, right));
    return it == ranks.end() ? kNoRank : it->second;
  }

  // Leaves the varint piece lengths of word in s.lengths.
  void segment(std::string_view word, Rng* rng, Scratch& s) const;
  // The varint piece lengths of word, from a cache or segment(); valid until the next call
  // on this thread.
  std::string_view lengths(std::string_view word, Rng* rng) const;
};

void Bpe::Impl::segment(std::string_view word, Rng* rng, Scratch& s) const {
  const bool final_mark = !end_of_word_symbol;
  s.ids.clear();
  s.lens.clear();
  size_t i = 0;
  while (i < word.size()) {
    const auto lead = static_cast<unsigned char>(word[i]);
    const size_t n = std::min(utf8_sequence_length(lead), word.size() - i);
    const bool last = i + n == word.size();
    int32_t id;
    if (lead < 0x80) {
      id = last ? ascii_final[lead] : ascii_inner[lead];
    } else if (last && final_mark) {
      s.key.assign(word.substr(i, n));
      s.key.append(kEndOfWord);
      auto it = symbol_ids.find(s.key);
      id = it == symbol_ids.end() ? -1 : it->second;
    } else {
      id = find(word.substr(i, n), s.key);
    }
    s.ids.push_back(id);
    s.lens.push_back(static_cast<uint32_t>(n));
    i += n;
  }
  if (end_of_word_symbol) {
    s.ids.push_back(end_of_word);
    s.lens.push_back(0);  // covers no byte of the word, so it disappears from the output
  }

  size_t n = s.ids.size();
  s.ranks.assign(n, kNoRank);
  s.fresh.assign(n, 0);
  for (size_t k = 0; k + 1 < n; ++k) s.ranks[k] = rank_of(s.ids[k], s.ids[k + 1]);

  const bool dropout = rng != nullptr && options.dropout > 0.0f;
  const double p = options.dropout;
  while (n > 1) {
    // The lowest rank among the pairs (that survive dropout at this step).
    int32_t best = kNoRank;
    if (dropout) {
      s.kept.assign(n, 0);
      for (size_t k = 0; k + 1 < n; ++k) {
        if (s.ranks[k] == kNoRank || uniform01(*rng) < p) continue;
        s.kept[k] = 1;
        best = std::min(best, s.ranks[k]);
      }
    } else {
      for (size_t k = 0; k + 1 < n; ++k) best = std::min(best, s.ranks[k]);
    }
    if (best == kNoRank) break;
    const int32_t merged = merged_by_rank[static_cast<size_t>(best)];

    // Merge the occurrences left to right, skipping one that overlaps the previous
    // ("a a a" → "aa a"). ranks[out] keeps the old rank where both neighbours are unchanged.
    size_t out = 0;
    for (size_t k = 0; k < n; ++out) {
      if (k + 1 < n && s.ranks[k] == best && (!dropout || s.kept[k])) {
        s.ids[out] = merged;
        s.lens[out] = s.lens[k] + s.lens[k + 1];
        s.fresh[out] = 1;
        k += 2;
      } else {
        const int32_t rank = k + 1 < n ? s.ranks[k] : kNoRank;
        s.ids[out] = s.ids[k];
        s.lens[out] = s.lens[k];
        s.fresh[out] = 0;
        s.ranks[out] = rank;
        k += 1;
      }
    }
    n = out;
    for (size_t k = 0; k + 1 < n; ++k) {
      if (s.fresh[k] || s.fresh[k + 1]) s.ranks[k] = rank_of(s.ids[k], s.ids[k + 1]);
    }
    s.ranks[n - 1] = kNoRank;
  }

  s.lengths.clear();
  for (size_t k = 0; k < n; ++k) {
    if (s.lens[k] > 0) append_varint(s.lengths, s.lens[k]);
  }
}

std::string_view Bpe::Impl::lengths(std::string_view word, Rng* rng) const {
  Scratch& s = scratch();
  if ((rng != nullptr && options.dropout > 0.0f) || options.cache_size == 0) {
    segment(word, rng, s);
    return s.lengths;
  }
  const size_t hash = std::hash<std::string_view>()(word);
  LocalEntry& local = local_cache()[hash & (kLocalEntries - 1)];
  if (local.owner == owner && local.word == word) return local.lengths;

  Shard& shard = shards[(hash >> 20) % kShards];
  s.key.assign(word);
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(shard.mutex);
    auto it = shard.words.find(s.key);
    if (it != shard.words.end()) {
      local.lengths = it->second;
      found = true;
    }
  }
  if (!found) {
    segment(word, nullptr, s);
    local.lengths = s.lengths;
    s.key.assign(word);
    std::lock_guard<std::mutex> lock(shard.mutex);
    if (shard.words.size() >= shard_capacity) shard.words.clear();
    shard.words.emplace(s.key, s.lengths);
  }
  local.owner = owner;
  local.word.assign(word);
  return local.lengths;
}

Bpe::Bpe(BpeCodes codes, BpeOptions options) : impl_(std::make_unique<Impl>()) {
  if (!(options.dropout >= 0.0f && options.dropout <= 1.0f)) {
    throw ConfigError("BPE-dropout must be between 0 and 1, not " +
                      std::to_string(options.dropout));
  }
  Impl& m = *impl_;
  m.codes = std::move(codes);
  m.options = options;
  m.end_of_word_symbol = m.codes.version() == BpeVersion::k01;
  m.shard_capacity = std::max<size_t>(1, options.cache_size / Impl::kShards);
  const auto& merges = m.codes.merges();
  m.merged_by_rank.reserve(merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const int32_t left = m.intern(merges[rank].left);
    const int32_t right = m.intern(merges[rank].right);
    m.merged_by_rank.push_back(m.intern(merges[rank].left + merges[rank].right));
    // A repeated merge keeps its first (best) rank, as subword-nmt's table does.
    m.ranks.emplace(pair_key(left, right), static_cast<int32_t>(rank));
  }
  m.is_merged.assign(m.symbol_ids.size(), 0);
  for (const int32_t id : m.merged_by_rank) m.is_merged[static_cast<size_t>(id)] = 1;
  for (const auto& [symbol, id] : m.symbol_ids) {
    if (!m.is_merged[static_cast<size_t>(id)]) continue;
    const bool final =
        symbol.size() >= kEndOfWord.size() &&
        symbol.compare(symbol.size() - kEndOfWord.size(), kEndOfWord.size(), kEndOfWord) == 0;
    m.longest_merged =
        std::max(m.longest_merged, symbol.size() - (final ? kEndOfWord.size() : size_t{0}));
  }
  std::string symbol, buffer;
  for (size_t c = 0; c < 128; ++c) {
    symbol.assign(1, static_cast<char>(c));
    m.ascii_inner[c] = m.find(symbol, buffer);
    if (!m.end_of_word_symbol) symbol.append(kEndOfWord);
    m.ascii_final[c] = m.find(symbol, buffer);
  }
  m.end_of_word = m.find(kEndOfWord, buffer);
}

Bpe::~Bpe() = default;

void Bpe::encode(std::string_view word, std::vector<std::string>& pieces, Rng* rng) const {
  if (word.empty()) return;
  size_t pos = 0;
  for_each_varint(impl_->lengths(word, rng), [&](uint32_t n) {
    pieces.emplace_back(word.substr(pos, n));
    pos += n;
  });
}

void Bpe::encode(std::string_view word, std::vector<std::string_view>& pieces, Rng* rng) const {
  if (word.empty()) return;
  size_t pos = 0;
  for_each_varint(impl_->lengths(word, rng), [&](uint32_t n) {
    pieces.push_back(word.substr(pos, n));
    pos += n;
  });
}

void Bpe::possible_pieces(std::string_view word, std::vector<std::string_view>& pieces) const {
  const Impl& m = *impl_;
  std::vector<size_t> starts;  // byte offset of each character, then word.size()
  for (size_t i = 0; i < word.size();) {
    starts.push_back(i);
    i += std::min(utf8_sequence_length(static_cast<unsigned char>(word[i])), word.size() - i);
  }
  starts.push_back(word.size());
  const auto merged = [&m](const std::string& symbol) {
    const auto it = m.symbol_ids.find(symbol);
    return it != m.symbol_ids.end() && m.is_merged[static_cast<size_t>(it->second)];
  };
  std::string symbol;
  const size_t n = starts.size() - 1;
  for (size_t i = 0; i < n; ++i) {
    pieces.push_back(word.substr(starts[i], starts[i + 1] - starts[i]));
    for (size_t j = i + 2; j <= n && starts[j] - starts[i] <= m.longest_merged; ++j) {
      symbol.assign(word.substr(starts[i], starts[j] - starts[i]));
      // Inside the word a symbol has no "</w>"; at its end it has (0.2: always; 0.1: when the
      // "</w>" symbol was merged into it).
      bool possible = j < n || m.end_of_word_symbol ? merged(symbol) : false;
      if (!possible && j == n) {
        symbol.append(kEndOfWord);
        possible = merged(symbol);
      }
      if (possible) pieces.push_back(word.substr(starts[i], starts[j] - starts[i]));
    }
  }
}

const BpeCodes& Bpe::codes() const {
  return impl_->codes;
}
const BpeOptions& Bpe::options() const {
  return impl_->options;
}

}  // namespace heed::text
