// Alignment error rate (Och & Ney 2003) with precision and recall, micro-averaged over a test
// set (counts summed before dividing, as published AER figures are computed):
//   precision = |A∩P| / |A|,  recall = |A∩S| / |S|,  AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|).
#pragma once

#include "heed/align/alignment.h"

namespace heed::align {

struct AerCounts {
  long long predicted = 0;     // |A|
  long long sure = 0;          // |S|
  long long possible = 0;      // |P| (sure links included)
  long long hit_sure = 0;      // |A∩S|
  long long hit_possible = 0;  // |A∩P|
  AerCounts& operator+=(const AerCounts& o);
  double precision() const;
  double recall() const;
  double aer() const;
  double f1() const;  // against sure links: 2PR/(P+R) with P over possible
};

AerCounts aer_counts(const Alignment& predicted, const GoldAlignment& gold);

}  // namespace heed::align
