// Word alignments: sets of (source, target) links, read and written in the field's formats —
// zero-based Pharaoh "i-j" (fast_align, Moses, Marian), one-based talp "i-j" / "ipj" (gold
// sets with sure and possible links) and NAACL 2003 "sent i j S|P" lines.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace heed::align {

struct Link {
  int source = 0;
  int target = 0;
  bool operator<(const Link& o) const {
    return source != o.source ? source < o.source : target < o.target;
  }
  bool operator==(const Link& o) const { return source == o.source && target == o.target; }
};

// Sorted, without duplicates.
using Alignment = std::vector<Link>;
void normalize(Alignment& links);

// "0-1 2-2": zero-based, source first, sorted.
std::string to_pharaoh(const Alignment& links);
// Parses Pharaoh links; a 'p' instead of '-' marks a possible link and is rejected here.
// Throws DataError naming file:line for anything else.
Alignment parse_pharaoh(std::string_view text, const std::string& file, long long line);

// A gold standard: sure links S and possible links P, with S ⊆ P.
struct GoldAlignment {
  Alignment sure;
  Alignment possible;
};

// talp lines: "1-2 3p4", one-based by default; sure links also go into possible.
GoldAlignment parse_talp(std::string_view text, const std::string& file, long long line,
                         bool one_based = true);
// The line parse_talp reads back: every link of sure and possible once, sorted, "i-j" when it
// is sure and "ipj" when it is only possible; one-based by default.
std::string to_talp(const GoldAlignment& gold, bool one_based = true);

// A whole talp file: one line per sentence (blank lines are sentences without links).
std::vector<GoldAlignment> parse_talp_lines(std::string_view text, const std::string& file,
                                            bool one_based = true);

// NAACL 2003 (WPT shared task) gold: one link per line, "sentence i j [S|P] [confidence]", all
// numbers 1-based (sentence 0001 is the first; position 0 is NULL). Without S|P a link is sure;
// the confidence is ignored. Sentences without links are simply absent, so the caller says how
// many there are: the result has `sentences` entries, sentence k in [k - 1]. Links to NULL are
// dropped (what scoring ".nonullalign" gold means); blank lines are skipped. Throws DataError
// naming file:line for a malformed line or a sentence number beyond `sentences`.
std::vector<GoldAlignment> parse_naacl(std::string_view text, const std::string& file,
                                       long long sentences);

enum class GoldFormat { kTalp, kNaacl };
// From the first line that is not blank: NAACL lines start with a sentence number, talp lines
// with a link ("1-2", "1p2"). A file without links reads the same either way (talp).
GoldFormat detect_gold_format(std::string_view text);

// Swaps source and target of every link (for the other translation direction).
Alignment transpose(const Alignment& links);
GoldAlignment transpose(const GoldAlignment& gold);

}  // namespace heed::align
