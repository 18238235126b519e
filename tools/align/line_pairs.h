// Two files read line for line (symmetrize's two alignments, agree's two attention files).
#pragma once

#include <string>

#include "heed/common/error.h"
#include "heed/io/line_reader.h"

namespace heed::align_tool {

// The next line of each; false when both have ended. When one ends first, reads the other to
// its end and throws DataError naming both files and their line counts, and what the lines are
// ("the alignments are", "the attention is") "not of the same sentence pairs".
inline bool next_line_pair(io::LineReader& forward, std::string& forward_line,
                           io::LineReader& reverse, std::string& reverse_line,
                           const std::string& what) {
  const bool has_forward = forward.next(forward_line);
  if (has_forward == reverse.next(reverse_line)) return has_forward;
  io::LineReader& longer = has_forward ? forward : reverse;
  std::string rest;
  while (longer.next(rest)) {
  }
  throw DataError("'" + forward.display_name() + "' has " + std::to_string(forward.line_number()) +
                  " lines but '" + reverse.display_name() + "' has " +
                  std::to_string(reverse.line_number()) + ": " + what +
                  " not of the same sentence pairs");
}

}  // namespace heed::align_tool
