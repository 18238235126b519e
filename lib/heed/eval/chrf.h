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
};

// [hyp, ref, match] counts for each order, flattened; they add up over a corpus.
using ChrfStats = std::vector<double>;

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
