// Symmetrization: one alignment from the alignments of the two translation directions, with
// the semantics of fast_align's "atools -c" (Koehn et al. 2003's heuristics as atools
// implements them), link for link.
//
// Both alignments are in the same orientation (source-target), as "atools -i FWD -j REV" takes
// them; transpose() a reverse alignment written target-source first.
//
//   intersect            F ∩ R
//   union                F ∪ R
//   grow-diag            start from F ∩ R; then pass over the links of F ∪ R not yet taken,
//                        in (source, target) order, taking each whose source or target word is
//                        still unaligned and that touches a taken link in one of its 8 neighbour
//                        cells (links taken earlier in the same pass count); repeat passes until
//                        one takes nothing
//   grow-diag-final      then the links of F, in order, whose source or target is unaligned;
//                        then those of R the same way
//   grow-diag-final-and  the same, but only links whose source and target are both unaligned
//
// The order matters: a link taken early can make a later one ineligible.
#pragma once

#include <string>
#include <vector>

#include "heed/align/alignment.h"

namespace heed::align {

enum class Symmetrization { kIntersect, kUnion, kGrowDiag, kGrowDiagFinal, kGrowDiagFinalAnd };
// What heed-align symmetrize does unless told.
inline constexpr Symmetrization kDefaultSymmetrization = Symmetrization::kGrowDiagFinalAnd;

// The names above, in that order.
const std::vector<std::string>& symmetrization_names();
// Throws ConfigError naming the accepted names.
Symmetrization parse_symmetrization(const std::string& name);

// forward and reverse need not be sorted; the result is (sorted, without duplicates).
Alignment symmetrize(const Alignment& forward, const Alignment& reverse, Symmetrization method);

}  // namespace heed::align
