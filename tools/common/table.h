// Text for the tools' reports: numbers with a fixed count of decimals, and rows as columns
// aligned for a terminal (heed-bench-attn's tables, heed-score's --system comparison).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace heed::cli {

// value with that many decimals; "-" when it is not finite.
std::string format_number(double value, int decimals);

// Rows (the header first) as lines whose columns are aligned by padding with spaces (two
// between columns; widths in code points, so "±" counts once); no trailing spaces.
std::vector<std::string> aligned_lines(const std::vector<std::vector<std::string>>& rows);
void write_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& rows);

}  // namespace heed::cli
