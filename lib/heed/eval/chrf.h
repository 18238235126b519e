// chrF (Popović 2015) as sacreBLEU 2.x computes it by default (chrF2): character n-grams of
// orders 1–6 with whitespace removed, F-beta with beta = 2 over the averaged precision and
// recall of the orders that occur, best reference per segment, statistics summed over a corpus.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace heed::eval {

struct ChrfOptions {
  int char_order = 6;       // sacreBLEU's default
  double beta = 2.0;        // chrF2
  bool lowercase = false;   // full Unicode lowercasing
  bool whitespace = false;  // keep whitespace inside the n-grams
  int word_order = 0;       // word n-grams of orders 1..this too (2: chrF++, Popović 2017)
};

// "chrF2", or "chrF2++" with word n-grams of order 2 (sacreBLEU's names).
std::string chrf_name(const ChrfOptions& options);

// [hyp, ref, match] counts for each order, flattened; they add up over a corpus.
using ChrfStats = std::vector<double>;

// The character n-grams of one text (lowercased and without whitespace as the options say),
// then its word n-grams (words split at whitespace, a punctuation mark at a word's end, else at
// its start, split off, as sacreBLEU does), each order's distinct n-grams sorted, with their
// counts: what a segment's statistics compare. Orders 1..char_order are characters, the next
// word_order ones words.
class CharNgrams {
 public:
  CharNgrams(std::string_view text, const ChrfOptions& options);
  // The n-grams of order n (1-based, over the character orders then the word orders) in a text
  // and in both this and other, repeats counted.
  double total(size_t n) const { return totals_[n - 1]; }
  double matches(const CharNgrams& other, size_t n) const;
  size_t orders() const { return totals_.size(); }

 private:
  struct Gram {
    size_t begin, size;  // bytes of text_
    int count;
  };
  std::string_view view(const Gram& g) const { return {text_.data() + g.begin, g.size}; }
  // Adds the n-grams of orders 1..order over units [starts[i], ends[i]) of text_: an n-gram is
  // the bytes from its first unit's start to its last unit's end.
  void count(const std::vector<size_t>& starts, const std::vector<size_t>& ends, size_t order);
  std::string text_;                      // grams are offsets, so a moved CharNgrams stays valid
  std::vector<std::vector<Gram>> grams_;  // [order - 1], sorted by their bytes
  std::vector<double> totals_;
};

// A segment's references, their n-grams counted once for every hypothesis scored against them
// (a --system comparison scores every run of every system against the same references).
struct ChrfReferences {
  std::vector<CharNgrams> texts;
};
ChrfReferences chrf_references(const std::vector<std::string_view>& references,
                               const ChrfOptions& options = {});

ChrfStats chrf_segment_stats(std::string_view hypothesis, const ChrfReferences& references,
                             const ChrfOptions& options = {});
ChrfStats chrf_segment_stats(std::string_view hypothesis,
                             const std::vector<std::string_view>& references,
                             const ChrfOptions& options = {});
double chrf_from_stats(const ChrfStats& stats, const ChrfOptions& options = {});
double corpus_chrf(const std::vector<std::string>& hypotheses,
                   const std::vector<std::vector<std::string>>& references,
                   const ChrfOptions& options = {});
// "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:heed-0.1.0"
std::string chrf_signature(const ChrfOptions& options, int references);

}  // namespace heed::eval
