#include "heed/text/vocab.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unordered_set>

#include "heed/common/error.h"
#include "heed/common/parallel.h"
#include "heed/io/line_reader.h"
#include "heed/text/input_check.h"
#include "heed/text/markers.h"

namespace heed::text {
namespace {

static_assert(kJoiner[0] == '\xEF' && kEscape[0] == '\xEF' && kFeatureSeparator[0] == '\xEF' &&
                  kPlaceholderOpen[0] == '\xEF' && kPlaceholderClose[0] == '\xEF',
              "bpe_word_of() looks for the marks' lead byte first");

bool is_separator(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

// Reads a file ("-" = stdin) in blocks of whole lines, so no token and no line is cut.
// The buffer is allocated once and not cleared, so a small file costs only its own size.
class BlockReader {
 public:
  explicit BlockReader(const std::string& path) : path_(path) {
    if (path == "-") {
      file_ = stdin;
    } else {
      file_ = std::fopen(path.c_str(), "rb");
      if (!file_) throw FileError("cannot open '" + path + "': " + errno_message(errno));
      owns_ = true;
    }
  }
  ~BlockReader() {
    if (owns_) std::fclose(file_);
  }
  BlockReader(const BlockReader&) = delete;
  BlockReader& operator=(const BlockReader&) = delete;

  // The next block, valid until the next call. False at the end of the input.
  bool next(std::string_view& block) {
    lines_before_ += lines_in_last_;
    const bool got = next_block(block);
    if (got && !started_) block = io::without_bom(block);
    started_ = true;
    lines_in_last_ = std::count(block.begin(), block.end(), '\n');
    return got;
  }

  // Lines of the file before the last block returned.
  long long lines_before() const { return lines_before_; }
  std::string display_name() const { return path_ == "-" ? "<stdin>" : path_; }

 private:
  bool next_block(std::string_view& block) {
    if (!buffer_) buffer_.reset(new char[capacity_]);  // not value-initialised
    // The incomplete line at the end of the last block comes first.
    std::memmove(buffer_.get(), buffer_.get() + carry_begin_, size_ - carry_begin_);
    size_ = size_ - carry_begin_;
    carry_begin_ = 0;
    while (!eof_) {
      if (size_ == capacity_) grow();  // a line longer than the whole buffer
      const size_t old = size_;
      size_ += std::fread(buffer_.get() + size_, 1, capacity_ - size_, file_);
      if (size_ < capacity_) {
        if (std::ferror(file_)) {
          throw FileError("cannot read '" + display_name() + "': " + errno_message(errno));
        }
        eof_ = true;
        break;
      }
      size_t cut = size_;
      while (cut > old && buffer_[cut - 1] != '\n') --cut;
      if (cut > old) {
        carry_begin_ = cut;
        block = std::string_view(buffer_.get(), cut);
        return true;
      }
    }
    carry_begin_ = size_;
    block = std::string_view(buffer_.get(), size_);
    return size_ > 0;
  }

  void grow() {
    std::unique_ptr<char[]> bigger(new char[capacity_ * 2]);
    std::memcpy(bigger.get(), buffer_.get(), size_);
    buffer_ = std::move(bigger);
    capacity_ *= 2;
  }

  std::string path_;
  std::FILE* file_ = nullptr;
  bool owns_ = false;
  bool eof_ = false;
  size_t capacity_ = size_t{8} << 20;
  std::unique_ptr<char[]> buffer_;
  size_t size_ = 0;         // bytes in buffer_
  size_t carry_begin_ = 0;  // buffer_[carry_begin_, size_) belongs to the next block
  bool started_ = false;
  long long lines_before_ = 0;
  long long lines_in_last_ = 0;
};

// block (lines_before lines of file come before it) as the counters must see it: itself when
// it is all text, else rebuilt line by line through checked_line() under policy.
std::string_view checked_block(std::string_view block, OnInvalid policy, const std::string& file,
                               long long lines_before, std::string& storage) {
  if (!find_invalid_text(block)) return block;
  storage.clear();
  std::string repaired;
  long long number = lines_before;
  size_t pos = 0;
  while (pos < block.size()) {
    size_t end = block.find('\n', pos);
    if (end == std::string_view::npos) end = block.size();
    storage += checked_line(block.substr(pos, end - pos), policy, file, ++number, repaired);
    storage += '\n';
    pos = end + 1;
  }
  return storage;
}

// Adds the tokens of text, mapped by key_of (an empty key is not counted), to counts.
template <typename KeyOf>
void add_keys(std::string_view text, WordCounts& counts, std::string& buffer, KeyOf key_of) {
  size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && is_separator(text[pos])) ++pos;
    size_t end = pos;
    while (end < text.size() && !is_separator(text[end])) ++end;
    if (end > pos) {
      const std::string_view key = key_of(text.substr(pos, end - pos));
      if (!key.empty()) {
        buffer.assign(key);
        auto it = counts.find(buffer);
        if (it != counts.end()) {
          ++it->second;
        } else {
          counts.emplace(buffer, 1);
        }
      }
    }
    pos = end;
  }
}

// Reads the files block by block; each block is cut at separators into one range per thread.
template <typename KeyOf>
WordCounts count_with(const std::vector<std::string>& paths, int threads, OnInvalid on_invalid,
                      KeyOf key_of) {
  const size_t workers = static_cast<size_t>(std::max(1, threads));
  std::vector<WordCounts> partial(workers);
  std::vector<std::string> buffers(workers);
  std::string_view block;
  std::string repaired;
  for (const auto& path : paths) {
    BlockReader reader(path);
    while (reader.next(block)) {
      const std::string_view text =
          checked_block(block, on_invalid, reader.display_name(), reader.lines_before(), repaired);
      std::vector<size_t> bounds(workers + 1, text.size());
      bounds[0] = 0;
      for (size_t w = 1; w < workers; ++w) {
        size_t b = std::max(bounds[w - 1], text.size() * w / workers);
        while (b < text.size() && !is_separator(text[b])) ++b;
        bounds[w] = b;
      }
      parallel_for(workers, threads, [&](size_t w) {
        add_keys(text.substr(bounds[w], bounds[w + 1] - bounds[w]), partial[w], buffers[w], key_of);
      });
    }
  }
  WordCounts total = std::move(partial[0]);
  for (size_t w = 1; w < workers; ++w) {
    for (auto& [word, count] : partial[w]) total[word] += count;
  }
  return total;
}

std::string_view token_itself(std::string_view token) {
  return token;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool count_order(const std::pair<std::string, long long>& a,
                 const std::pair<std::string, long long>& b) {
  return a.second != b.second ? a.second > b.second : a.first < b.first;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Counting

std::string_view bpe_word_of(std::string_view token) {
  // Every mark is in U+F000–U+FFFF, whose UTF-8 starts with 0xEF: most tokens have none.
  if (token.find('\xEF') == std::string_view::npos) return token;
  if (token.substr(0, kPlaceholderOpen.size()) == kPlaceholderOpen) return {};
  // The layout is [￭]text[￭][￨C|￨U]: the case mark is the very last thing.
  const size_t mark = kFeatureSeparator.size() + 1;
  if (token.size() > mark &&
      token.substr(token.size() - mark, kFeatureSeparator.size()) == kFeatureSeparator) {
    token.remove_suffix(mark);
  }
  if (token.substr(0, kJoiner.size()) == kJoiner) token.remove_prefix(kJoiner.size());
  if (token.size() >= kJoiner.size() && token.substr(token.size() - kJoiner.size()) == kJoiner) {
    token.remove_suffix(kJoiner.size());
  }
  if (contains(token, kJoiner) || contains(token, kEscape) || contains(token, kFeatureSeparator) ||
      contains(token, kPlaceholderOpen) || contains(token, kPlaceholderClose)) {
    return {};
  }
  return token;
}

void add_tokens(std::string_view text, WordCounts& counts) {
  std::string buffer;
  add_keys(text, counts, buffer, token_itself);
}

void add_words(std::string_view text, WordCounts& counts) {
  std::string buffer;
  add_keys(text, counts, buffer, bpe_word_of);
}

WordCounts count_tokens(const std::vector<std::string>& paths, int threads, OnInvalid on_invalid) {
  return count_with(paths, threads, on_invalid, token_itself);
}

WordCounts count_words(const std::vector<std::string>& paths, int threads, OnInvalid on_invalid) {
  return count_with(paths, threads, on_invalid, bpe_word_of);
}

// ---------------------------------------------------------------------------------------
// Count files

CountList sorted_counts(const WordCounts& counts, const VocabCountOptions& options) {
  CountList list;
  list.reserve(counts.size());
  for (const auto& [token, count] : counts) {
    if (count >= options.min_count) list.emplace_back(token, count);
  }
  std::sort(list.begin(), list.end(), count_order);
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
  std::unordered_map<std::string_view, long long> first_line;
  io::TextLines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    const long long line_number = lines.line_number();
    if (auto bad = find_invalid_text(line)) {
      throw FormatError(at_line(name, line_number, describe_invalid_text(line, *bad)));
    }
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos || line.find('\t', tab + 1) != std::string_view::npos) {
      throw FormatError(at_line(name, line_number, "expected 'token<TAB>count'"));
    }
    if (tab == 0) throw FormatError(at_line(name, line_number, "empty token"));
    const std::string_view token = line.substr(0, tab);
    const std::string_view number = line.substr(tab + 1);
    long long count = 0;
    bool ok = !number.empty() && number.size() <= 18;
    for (char c : number) {
      ok = ok && c >= '0' && c <= '9';
      if (ok) count = count * 10 + (c - '0');
    }
    if (!ok) {
      throw FormatError(at_line(name, line_number,
                                "count '" + std::string(number) + "' is not a decimal number"));
    }
    auto [seen, inserted] = first_line.emplace(token, line_number);
    if (!inserted) {
      throw FormatError(at_line(name, line_number,
                                "duplicate token '" + std::string(token) + "' (first on line " +
                                    std::to_string(seen->second) + ")"));
    }
    list.emplace_back(std::string(token), count);
  }
  return list;
}

CountList load_counts(const std::string& path) {
  return parse_counts(io::read_whole_file(path), path);
}

// ---------------------------------------------------------------------------------------
// Vocab

Vocab::Vocab() {
  for (const char* special : kSpecials) add(special, 0);
}

void Vocab::add(const std::string& token, long long count) {
  if (ids_.count(token)) return;
  ids_.emplace(token, static_cast<int32_t>(tokens_.size()));
  tokens_.push_back(token);
  counts_.push_back(count);
}

Vocab Vocab::from_counts(const CountList& counts, const VocabOptions& options) {
  if (options.max_size < 0 || (options.max_size > 0 && options.max_size < kSpecialCount)) {
    throw ConfigError("the vocabulary size must be 0 (no limit) or at least " +
                      std::to_string(kSpecialCount) + " (the special tokens), not " +
                      std::to_string(options.max_size));
  }
  CountList sorted = counts;
  std::stable_sort(sorted.begin(), sorted.end(), count_order);
  Vocab vocab;
  for (const auto& [token, count] : sorted) {
    if (count < options.min_count) break;
    auto special = vocab.ids_.find(token);
    if (special != vocab.ids_.end() && special->second < kSpecialCount) {
      vocab.counts_[static_cast<size_t>(special->second)] = count;
      continue;
    }
    if (options.max_size > 0 && vocab.size() >= options.max_size) break;
    vocab.add(token, count);
  }
  return vocab;
}

Vocab Vocab::from_counts(const WordCounts& counts, const VocabOptions& options) {
  return from_counts(CountList(counts.begin(), counts.end()), options);
}

Vocab Vocab::load(const std::string& path, const VocabOptions& options) {
  const CountList counts = load_counts(path);
  // A model over the special tokens alone turns every word into <unk>: an empty file is a
  // mistake (a wrong path or a failed step before), not a vocabulary.
  if (counts.empty()) throw DataError(path + ": no words (an empty vocabulary file)");
  return from_counts(counts, options);
}

int32_t Vocab::id(std::string_view token) const {
  thread_local std::string key;
  key.assign(token);
  auto it = ids_.find(key);
  return it == ids_.end() ? kUnkId : it->second;
}

bool Vocab::contains(std::string_view token) const {
  thread_local std::string key;
  key.assign(token);
  return ids_.count(key) > 0;
}

const std::string& Vocab::token(int32_t id) const {
  if (id < 0 || id >= size()) {
    throw InternalError("vocabulary id " + std::to_string(id) + " out of range [0, " +
                        std::to_string(size()) + ")");
  }
  return tokens_[static_cast<size_t>(id)];
}

long long Vocab::count(int32_t id) const {
  token(id);  // range check
  return counts_[static_cast<size_t>(id)];
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
  CountList list = parse_counts(text, name);  // rejects duplicates
  Vocab vocab;
  for (size_t i = 0; i < static_cast<size_t>(kSpecialCount); ++i) {
    if (i >= list.size() || list[i].first != kSpecials[i]) {
      throw FormatError(at_line(name, static_cast<long long>(i + 1),
                                std::string("expected the special token '") + kSpecials[i] +
                                    "' (a vocabulary starts with <pad> <unk> <s> </s>)"));
    }
    vocab.counts_[i] = list[i].second;
  }
  for (size_t i = kSpecialCount; i < list.size(); ++i) vocab.add(list[i].first, list[i].second);
  return vocab;
}

}  // namespace heed::text
