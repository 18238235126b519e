#include "heed/align/symmetrize.h"

#include <catch2/catch.hpp>
#include <string>

#include "heed/common/error.h"

using namespace heed;
using align::Symmetrization;

namespace {

// symmetrize() on two Pharaoh lines, as a Pharaoh line.
std::string sym(const std::string& forward, const std::string& reverse, Symmetrization method) {
  return align::to_pharaoh(align::symmetrize(align::parse_pharaoh(forward, "fwd", 1),
                                             align::parse_pharaoh(reverse, "rev", 1), method));
}

}  // namespace

// Every expected line below was worked out by hand from the rules in symmetrize.h, and agrees
// with fast_align's "atools -c METHOD" on the same two lines.

TEST_CASE(
    "symmetrize: the final steps take the forward links first, final-and only into "
    "two unaligned words",
    "[align][fast]") {
  // F = {0-0 1-1 2-1 4-4}, R = {0-0 1-1 1-2 3-4}.
  const std::string f = "0-0 1-1 2-1 4-4", r = "0-0 1-1 1-2 3-4";
  CHECK(sym(f, r, Symmetrization::kIntersect) == "0-0 1-1");
  CHECK(sym(f, r, Symmetrization::kUnion) == "0-0 1-1 1-2 2-1 3-4 4-4");
  // grow-diag starts from F∩R = {0-0 1-1}: sources {0,1} and targets {0,1} aligned. Candidates
  // F∪R \ F∩R in order: 1-2, 2-1, 3-4, 4-4.
  //   pass 1: 1-2: target 2 unaligned, neighbour 1-1 taken -> take (targets {0,1,2}).
  //           2-1: source 2 unaligned, neighbour 1-1 -> take (sources {0,1,2}).
  //           3-4: none of its 8 neighbours (2-3 2-4 2-5 3-3 3-5 4-3 4-4 4-5) taken -> no.
  //           4-4: neighbours 3-3 3-4 3-5 4-3 4-5 (5-x) not taken -> no.
  //   pass 2: 3-4 and 4-4 still have no taken neighbour -> nothing; stop.
  CHECK(sym(f, r, Symmetrization::kGrowDiag) == "0-0 1-1 1-2 2-1");
  // final: F in order: 4-4 (source 4 unaligned) -> take; then R: 3-4 (source 3 unaligned, even
  // though target 4 is now aligned) -> take.
  CHECK(sym(f, r, Symmetrization::kGrowDiagFinal) == "0-0 1-1 1-2 2-1 3-4 4-4");
  // final-and: F: 4-4, source 4 and target 4 unaligned -> take; R: 3-4, target 4 aligned by
  // 4-4 -> no.
  CHECK(sym(f, r, Symmetrization::kGrowDiagFinalAnd) == "0-0 1-1 1-2 2-1 4-4");
  // Swapped, R's 3-4 comes first and takes target 4, so F's 4-4 is refused: the order of the
  // inputs matters for final-and (and only there among these five).
  CHECK(sym(r, f, Symmetrization::kGrowDiagFinalAnd) == "0-0 1-1 1-2 2-1 3-4");
  CHECK(sym(r, f, Symmetrization::kGrowDiagFinal) == "0-0 1-1 1-2 2-1 3-4 4-4");
  CHECK(sym(r, f, Symmetrization::kGrowDiag) == "0-0 1-1 1-2 2-1");
}

TEST_CASE(
    "symmetrize: grow-diag visits candidates in (source, target) order and never links "
    "two aligned words",
    "[align][fast]") {
  // F = {0-0 0-1 1-1}, R = {0-0 1-0}: F∩R = {0-0}; candidates 0-1, 1-0, 1-1, all neighbours
  // of 0-0.
  //   0-1: target 1 unaligned -> take.  1-0: source 1 unaligned -> take.
  //   1-1: source 1 and target 1 both aligned now -> no (visited first it would have been
  //   taken, and then 0-1 and 1-0 refused).
  const std::string f = "0-0 0-1 1-1", r = "0-0 1-0";
  CHECK(sym(f, r, Symmetrization::kGrowDiag) == "0-0 0-1 1-0");
  // final and final-and: F's 1-1 joins two aligned words -> no.
  CHECK(sym(f, r, Symmetrization::kGrowDiagFinal) == "0-0 0-1 1-0");
  CHECK(sym(f, r, Symmetrization::kGrowDiagFinalAnd) == "0-0 0-1 1-0");
  CHECK(sym(f, r, Symmetrization::kUnion) == "0-0 0-1 1-0 1-1");
}

TEST_CASE("symmetrize: grow-diag passes again until a pass takes nothing", "[align][fast]") {
  // F = {0-0 1-1 2-2}, R = {2-2}: F∩R = {2-2}; candidates 0-0, 1-1.
  //   pass 1: 0-0: its neighbours (0-1 1-0 1-1) not taken yet -> no; 1-1: neighbour 2-2 -> take.
  //   pass 2: 0-0: neighbour 1-1 now taken, both words unaligned -> take.  pass 3: nothing.
  CHECK(sym("0-0 1-1 2-2", "2-2", Symmetrization::kGrowDiag) == "0-0 1-1 2-2");
  // A diagonal neighbour counts (1-0 touches 0-1 corner to corner), an anti-diagonal one too.
  CHECK(sym("0-1 1-0", "0-1", Symmetrization::kGrowDiag) == "0-1 1-0");
  // Two cells apart is not a neighbour.
  CHECK(sym("0-0 2-0", "0-0", Symmetrization::kGrowDiag) == "0-0");
}

TEST_CASE("symmetrize: empty sides", "[align][fast]") {
  // F empty, R = {0-0}: F∩R empty, so grow-diag has nothing to grow from; final adds R's 0-0
  // (both words unaligned).
  CHECK(sym("", "0-0", Symmetrization::kIntersect).empty());
  CHECK(sym("", "0-0", Symmetrization::kUnion) == "0-0");
  CHECK(sym("", "0-0", Symmetrization::kGrowDiag).empty());
  CHECK(sym("", "0-0", Symmetrization::kGrowDiagFinal) == "0-0");
  CHECK(sym("", "0-0", Symmetrization::kGrowDiagFinalAnd) == "0-0");
  CHECK(sym("", "", Symmetrization::kGrowDiagFinalAnd).empty());
  // Far-apart indices need no grid of their size: 999999999-999999999 touches nothing and its words
  // are unaligned, so only final takes it.
  CHECK(sym("0-0 999999999-999999999", "0-0", Symmetrization::kGrowDiag) == "0-0");
  CHECK(sym("0-0 999999999-999999999", "0-0", Symmetrization::kGrowDiagFinalAnd) ==
        "0-0 999999999-999999999");
}

TEST_CASE("symmetrize: method names", "[align][fast]") {
  for (const std::string& name : align::symmetrization_names()) {
    CHECK(align::symmetrization_names()[size_t(align::parse_symmetrization(name))] == name);
  }
  CHECK(align::parse_symmetrization("grow-diag-final-and") == Symmetrization::kGrowDiagFinalAnd);
  CHECK_THROWS_AS(align::parse_symmetrization("gdfa"), ConfigError);
  CHECK_THROWS_WITH(align::parse_symmetrization("gdfa"),
                    Catch::Contains("'gdfa'") && Catch::Contains("grow-diag-final-and"));
}
