#include "heed/align/aer.h"

#include <algorithm>

namespace heed::align {
namespace {

long long intersection(const Alignment& a, const Alignment& b) {
  long long n = 0;
  for (const Link& l : a) n += std::binary_search(b.begin(), b.end(), l) ? 1 : 0;
  return n;
}

}  // namespace

AerCounts& AerCounts::operator+=(const AerCounts& o) {
  predicted += o.predicted;
  sure += o.sure;
  possible += o.possible;
  hit_sure += o.hit_sure;
  hit_possible += o.hit_possible;
  return *this;
}

double AerCounts::precision() const {
  return predicted ? static_cast<double>(hit_possible) / static_cast<double>(predicted) : 0.0;
}

double AerCounts::recall() const {
  return sure ? static_cast<double>(hit_sure) / static_cast<double>(sure) : 0.0;
}

double AerCounts::aer() const {
  const long long denominator = predicted + sure;
  if (denominator == 0) return 0.0;
  return 1.0 - static_cast<double>(hit_sure + hit_possible) / static_cast<double>(denominator);
}

double AerCounts::f1() const {
  const double p = precision(), r = recall();
  return p + r > 0.0 ? 2.0 * p * r / (p + r) : 0.0;
}

AerCounts aer_counts(const Alignment& predicted, const GoldAlignment& gold) {
  Alignment a = predicted, s = gold.sure, p = gold.possible;
  normalize(a);
  normalize(s);
  normalize(p);
  AerCounts c;
  c.predicted = static_cast<long long>(a.size());
  c.sure = static_cast<long long>(s.size());
  c.possible = static_cast<long long>(p.size());
  c.hit_sure = intersection(a, s);
  c.hit_possible = intersection(a, p);
  return c;
}

}  // namespace heed::align
