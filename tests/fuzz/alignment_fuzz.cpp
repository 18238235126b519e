// Alignment and gold readers of lib/heed/align: every input line is read as Pharaoh links and
// as talp gold (one- and zero-based), and scored with aer_counts. Bad items must be refused
// with DataError; accepted links are sorted and unique, to_pharaoh() parses back to the same
// links, transpose() twice is the identity, sure links are possible links, and the AER counts
// are consistent (hits within their sets, rates within [0, 1]). Each two successive Pharaoh lines
// are symmetrized by every method: sorted, between intersection and union, grow-diag within the
// final variants. The whole input is also read as talp and NAACL gold files.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "heed/align/aer.h"
#include "heed/align/alignment.h"
#include "heed/align/symmetrize.h"

using namespace heed;
using namespace heed::align;
using heed::fuzz::fuzz_fail;

namespace {

void check_sorted(const Alignment& links, const char* what) {
  for (size_t i = 1; i < links.size(); ++i) {
    if (!(links[i - 1] < links[i])) fuzz_fail(std::string(what) + " not sorted and unique");
  }
  for (const Link& l : links) {
    if (l.source < 0 || l.target < 0) fuzz_fail(std::string(what) + " has a negative index");
  }
}

bool in_unit_range(double x) {
  return x >= 0.0 && x <= 1.0;
}

void check_counts(const AerCounts& c) {
  if (c.hit_sure > c.sure || c.hit_sure > c.predicted || c.hit_possible > c.predicted ||
      c.hit_sure > c.hit_possible) {
    fuzz_fail("AER counts out of their sets");
  }
  if (c.predicted > 0 && !in_unit_range(c.precision())) fuzz_fail("precision outside [0, 1]");
  if (c.sure > 0 && !in_unit_range(c.recall())) fuzz_fail("recall outside [0, 1]");
  if (c.predicted + c.sure > 0 && !in_unit_range(c.aer())) fuzz_fail("AER outside [0, 1]");
}

bool includes(const Alignment& outer, const Alignment& inner) {
  return std::includes(outer.begin(), outer.end(), inner.begin(), inner.end());
}

void check_symmetrizations(const Alignment& forward, const Alignment& reverse) {
  std::vector<Alignment> by_method;
  for (const std::string& name : symmetrization_names()) {
    by_method.push_back(symmetrize(forward, reverse, parse_symmetrization(name)));
    check_sorted(by_method.back(), "symmetrized links");
  }
  const Alignment& intersection = by_method[size_t(Symmetrization::kIntersect)];
  const Alignment& either = by_method[size_t(Symmetrization::kUnion)];
  const Alignment& grow_diag = by_method[size_t(Symmetrization::kGrowDiag)];
  for (const Alignment& links : by_method) {
    if (!includes(links, intersection) || !includes(either, links)) {
      fuzz_fail("a symmetrization outside intersection..union");
    }
  }
  if (!includes(by_method[size_t(Symmetrization::kGrowDiagFinal)], grow_diag) ||
      !includes(by_method[size_t(Symmetrization::kGrowDiagFinalAnd)], grow_diag)) {
    fuzz_fail("grow-diag-final(-and) lost a grow-diag link");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  AerCounts total;
  long long line_number = 0;
  Alignment previous;
  bool previous_parsed = false;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;

    Alignment links;
    const bool pharaoh =
        fuzz::refuses_cleanly([&] { links = parse_pharaoh(line, "input", line_number); });
    if (pharaoh) {
      check_sorted(links, "Pharaoh links");
      if (parse_pharaoh(to_pharaoh(links), "to_pharaoh", 1) != links) {
        fuzz_fail("parse_pharaoh(to_pharaoh(links)) != links");
      }
      if (transpose(transpose(links)) != links) fuzz_fail("transpose twice changed the links");
      if (previous_parsed) check_symmetrizations(previous, links);
      previous = links;
    }
    previous_parsed = pharaoh;
    for (bool one_based : {true, false}) {
      GoldAlignment gold;
      if (!fuzz::refuses_cleanly(
              [&] { gold = parse_talp(line, "input", line_number, one_based); })) {
        continue;
      }
      check_sorted(gold.sure, "sure links");
      check_sorted(gold.possible, "possible links");
      if (!std::includes(gold.possible.begin(), gold.possible.end(), gold.sure.begin(),
                         gold.sure.end())) {
        fuzz_fail("a sure link is not a possible link");
      }
      const GoldAlignment twice = transpose(transpose(gold));
      if (twice.sure != gold.sure || twice.possible != gold.possible) {
        fuzz_fail("transpose twice changed the gold links");
      }
      const AerCounts counts = aer_counts(pharaoh ? links : gold.sure, gold);
      check_counts(counts);
      total += counts;
    }
  }
  check_counts(total);

  // Whole files: one talp line per sentence; NAACL links of at most line_number sentences.
  std::vector<GoldAlignment> sentences;
  fuzz::refuses_cleanly([&] { sentences = parse_talp_lines(text, "input"); });
  if (!sentences.empty() && static_cast<long long>(sentences.size()) > line_number) {
    fuzz_fail("more talp sentences than lines");
  }
  if (fuzz::refuses_cleanly([&] { sentences = parse_naacl(text, "input", line_number); })) {
    if (static_cast<long long>(sentences.size()) != line_number) {
      fuzz_fail("parse_naacl did not return the sentences asked for");
    }
    for (const GoldAlignment& gold : sentences) {
      check_sorted(gold.sure, "NAACL sure links");
      if (!includes(gold.possible, gold.sure)) fuzz_fail("a NAACL sure link is not possible");
    }
  }
  detect_gold_format(text);
  return 0;
}
