#include "heed/align/symmetrize.h"

#include <algorithm>
#include <iterator>
#include <set>

#include "heed/common/error.h"
#include "heed/common/strings.h"

namespace heed::align {
namespace {

// The alignment being grown, with the source and target words it already covers. atools keeps
// them in grids sized by the largest indices of the two inputs; sets give the same answers
// (every cell outside those grids is empty) without a grid the size of "0-0 99999-99999".
class GrowingAlignment {
 public:
  void take(const Link& l) {
    taken_.insert(l);
    aligned_sources_.insert(l.source);
    aligned_targets_.insert(l.target);
  }
  bool has(const Link& l) const { return taken_.count(l) > 0; }
  bool has_neighbour(const Link& l) const {
    for (int ds = -1; ds <= 1; ++ds) {
      for (int dt = -1; dt <= 1; ++dt) {
        if ((ds != 0 || dt != 0) && has({l.source + ds, l.target + dt})) return true;
      }
    }
    return false;
  }
  bool either_unaligned(const Link& l) const {
    return !aligned_sources_.count(l.source) || !aligned_targets_.count(l.target);
  }
  bool both_unaligned(const Link& l) const {
    return !aligned_sources_.count(l.source) && !aligned_targets_.count(l.target);
  }
  Alignment result() const { return Alignment(taken_.begin(), taken_.end()); }

 private:
  std::set<Link> taken_;
  std::set<int> aligned_sources_, aligned_targets_;
};

Alignment grow_diag(const Alignment& forward, const Alignment& reverse, Symmetrization method) {
  // Start from the links both directions agree on; the others are candidates, in order.
  Alignment both, candidates;
  std::set_intersection(forward.begin(), forward.end(), reverse.begin(), reverse.end(),
                        std::back_inserter(both));
  std::set_symmetric_difference(forward.begin(), forward.end(), reverse.begin(), reverse.end(),
                                std::back_inserter(candidates));
  GrowingAlignment grown;
  for (const Link& l : both) grown.take(l);

  bool took = true;
  while (took) {
    took = false;
    for (const Link& l : candidates) {
      if (grown.either_unaligned(l) && grown.has_neighbour(l)) {
        grown.take(l);
        took = true;
      }
    }
    candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                    [&](const Link& l) { return grown.has(l); }),
                     candidates.end());
  }

  if (method == Symmetrization::kGrowDiag) return grown.result();
  const bool need_both_unaligned = method == Symmetrization::kGrowDiagFinalAnd;
  for (const Alignment* direction : {&forward, &reverse}) {
    for (const Link& l : *direction) {
      if (need_both_unaligned ? grown.both_unaligned(l) : grown.either_unaligned(l)) grown.take(l);
    }
  }
  return grown.result();
}

}  // namespace

const std::vector<std::string>& symmetrization_names() {
  static const std::vector<std::string> names = {"intersect", "union", "grow-diag",
                                                 "grow-diag-final", "grow-diag-final-and"};
  return names;
}

Symmetrization parse_symmetrization(const std::string& name) {
  const auto& names = symmetrization_names();
  const auto found = std::find(names.begin(), names.end(), name);
  if (found == names.end()) {
    throw ConfigError("--method: unknown value '" + name + "' (expected " + join(names, ", ") +
                      ")");
  }
  return static_cast<Symmetrization>(found - names.begin());
}

Alignment symmetrize(const Alignment& forward, const Alignment& reverse, Symmetrization method) {
  Alignment f = forward, r = reverse, out;
  normalize(f);
  normalize(r);
  switch (method) {
    case Symmetrization::kIntersect:
      std::set_intersection(f.begin(), f.end(), r.begin(), r.end(), std::back_inserter(out));
      return out;
    case Symmetrization::kUnion:
      std::set_union(f.begin(), f.end(), r.begin(), r.end(), std::back_inserter(out));
      return out;
    default:
      return grow_diag(f, r, method);
  }
}

}  // namespace heed::align
