#include "heed/text/bpe.h"

#include <atomic>
#include <cerrno>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <unordered_map>

#include "heed/common/error.h"
#include "heed/io/line_writer.h"
#include "heed/text/utf8.h"

namespace heed::text {
namespace {

constexpr std::string_view kEndOfWord = "</w>";
constexpr std::string_view kVersionHeader = "#version:";

uint64_t next_id() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

// Segmentations of the words a thread has seen, for one Bpe instance at a time: lock-free, so
// tokenizing on several threads scales. Bounded; cleared when full or when another instance
// takes over the thread.
struct WordCache {
  static constexpr size_t kMaxEntries = 1 << 18;
  uint64_t owner = 0;
  std::unordered_map<std::string, std::vector<std::string>> words;
};
thread_local WordCache t_cache;

uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

}  // namespace

BpeCodes BpeCodes::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError("cannot open BPE codes '" + path + "': " + errno_message(errno));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse(buffer.str(), path);
}

BpeCodes BpeCodes::parse(std::string_view text, const std::string& name) {
  BpeCodes codes;
  codes.version_ = BpeVersion::k01;  // subword-nmt reads a file without header as 0.1
  size_t pos = 0;
  long long line_number = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line_number == 1 && line.substr(0, kVersionHeader.size()) == kVersionHeader) {
      std::string_view version = line.substr(kVersionHeader.size());
      while (!version.empty() && version.front() == ' ') version.remove_prefix(1);
      if (version == "0.2") {
        codes.version_ = BpeVersion::k02;
      } else if (version != "0.1") {
        throw FormatError(at_line(name, line_number, "unsupported BPE codes version '" +
                                                         std::string(version) + "'"));
      }
      continue;
    }
    if (line.empty()) continue;
    size_t space = line.find(' ');
    if (space == 0 || space == std::string_view::npos || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string_view::npos) {
      throw FormatError(at_line(name, line_number,
                                "expected a merge 'LEFT RIGHT' (two symbols, one space)"));
    }
    codes.merges_.push_back({std::string(line.substr(0, space)), std::string(line.substr(space + 1))});
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

void BpeCodes::save(const std::string& path) const { io::write_file_atomically(path, to_string()); }

// Symbols are interned as ints; a merge is (left id, right id) → (rank, merged id).
struct Bpe::Impl {
  BpeCodes codes;
  BpeOptions options;
  std::unordered_map<std::string, int32_t> symbol_ids;
  std::vector<std::string> symbols;
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> merges;  // → (rank, merged)

  uint64_t instance = next_id();  // names this instance in the per-thread caches

  int32_t intern(const std::string& symbol) {
    auto [it, inserted] = symbol_ids.emplace(symbol, static_cast<int32_t>(symbols.size()));
    if (inserted) symbols.push_back(symbol);
    return it->second;
  }

  int32_t find(const std::string& symbol) const {
    auto it = symbol_ids.find(symbol);
    return it == symbol_ids.end() ? -1 : it->second;
  }

  void segment(std::string_view word, std::vector<std::string>& pieces, Rng* rng) const;
};

void Bpe::Impl::segment(std::string_view word, std::vector<std::string>& pieces, Rng* rng) const {
  // Initial symbols: code points; with 0.2 the last one carries "</w>", with 0.1 "</w>" is a
  // symbol of its own. Unknown symbols get id -1 and never merge.
  std::vector<int32_t> ids;
  std::vector<std::string> unknown;  // text of the -1 symbols, in order
  std::vector<std::string_view> chars;
  for_each_utf8_char(word, [&chars](std::string_view c) { chars.push_back(c); });
  std::string symbol;
  for (size_t i = 0; i < chars.size(); ++i) {
    symbol.assign(chars[i]);
    if (i + 1 == chars.size() && codes.version() == BpeVersion::k02) symbol += kEndOfWord;
    ids.push_back(find(symbol));
    if (ids.back() < 0) unknown.push_back(symbol);
  }
  if (codes.version() == BpeVersion::k01) {
    ids.push_back(find(std::string(kEndOfWord)));
    if (ids.back() < 0) unknown.emplace_back(kEndOfWord);
  }

  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  const bool dropout = rng != nullptr && options.dropout > 0.0f;
  std::vector<char> kept;  // per position: the pair starting there survived dropout
  while (ids.size() > 1) {
    int32_t best_rank = std::numeric_limits<int32_t>::max();
    uint64_t best_key = 0;
    int32_t best_merged = -1;
    kept.assign(ids.size(), 0);
    for (size_t i = 0; i + 1 < ids.size(); ++i) {
      // BPE-dropout (as subword-nmt): each pair occurrence is dropped with probability p
      // at this step; only the surviving occurrences of the best pair are merged.
      if (dropout && uniform(*rng) <= options.dropout) continue;
      if (ids[i] < 0 || ids[i + 1] < 0) continue;
      auto it = merges.find(pair_key(ids[i], ids[i + 1]));
      if (it == merges.end()) continue;
      kept[i] = 1;
      if (it->second.first < best_rank) {
        best_rank = it->second.first;
        best_key = it->first;
        best_merged = it->second.second;
      }
    }
    if (best_merged < 0) break;
    // Merge the non-overlapping occurrences of the best pair, left to right.
    size_t out = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i + 1 < ids.size() && kept[i] && pair_key(ids[i], ids[i + 1]) == best_key) {
        ids[out++] = best_merged;
        ++i;
      } else {
        ids[out++] = ids[i];
      }
    }
    ids.resize(out);
  }

  size_t next_unknown = 0;
  const size_t first = pieces.size();
  for (int32_t id : ids) {
    pieces.push_back(id >= 0 ? symbols[static_cast<size_t>(id)] : unknown[next_unknown++]);
  }
  // Strip the end-of-word mark: a lone "</w>" (0.1) goes, a suffix (0.2) is cut off.
  if (pieces.size() > first) {
    std::string& last = pieces.back();
    if (last == kEndOfWord) {
      pieces.pop_back();
    } else if (last.size() > kEndOfWord.size() &&
               std::string_view(last).substr(last.size() - kEndOfWord.size()) == kEndOfWord) {
      last.resize(last.size() - kEndOfWord.size());
    }
  }
}

Bpe::Bpe(BpeCodes codes, BpeOptions options) : impl_(std::make_unique<Impl>()) {
  if (!(options.dropout >= 0.0f && options.dropout < 1.0f)) {
    throw ConfigError("BPE-dropout must be in [0, 1)");
  }
  impl_->codes = std::move(codes);
  impl_->options = options;
  const auto& merges = impl_->codes.merges();
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    int32_t left = impl_->intern(merges[rank].left);
    int32_t right = impl_->intern(merges[rank].right);
    int32_t merged = impl_->intern(merges[rank].left + merges[rank].right);
    // A repeated merge keeps its first (best) rank, as subword-nmt's dict construction does.
    impl_->merges.emplace(pair_key(left, right), std::make_pair(static_cast<int32_t>(rank), merged));
  }
}

Bpe::~Bpe() = default;

void Bpe::encode(std::string_view word, std::vector<std::string>& pieces, Rng* rng) const {
  if (word.empty()) return;
  if (rng != nullptr && impl_->options.dropout > 0.0f) {
    impl_->segment(word, pieces, rng);
    return;
  }
  WordCache& cache = t_cache;
  if (cache.owner != impl_->instance || cache.words.size() >= WordCache::kMaxEntries) {
    cache.words.clear();
    cache.owner = impl_->instance;
  }
  auto [it, inserted] = cache.words.try_emplace(std::string(word));
  if (inserted) impl_->segment(word, it->second, nullptr);
  pieces.insert(pieces.end(), it->second.begin(), it->second.end());
}

const BpeCodes& Bpe::codes() const { return impl_->codes; }
const BpeOptions& Bpe::options() const { return impl_->options; }

}  // namespace heed::text
