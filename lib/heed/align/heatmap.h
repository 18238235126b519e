// Attention heatmaps: one sentence pair's soft alignment (soft_alignment.h) drawn as a
// self-contained SVG, with predicted and gold word links marked over it, and an HTML page of
// several such drawings. No scripts, fonts or files are referenced: the SVG opens in any browser
// or viewer, and the HTML page is also well-formed XML (XHTML syntax), so both parse as XML.
//
// Source tokens are the columns (labels on top, rotated), target tokens the rows (labels on the
// left), and a last row "</s>" holds the step that predicted the end of the sentence. A cell's
// shade is its attention weight (white 0 … dark blue 1, with a colour bar) and its <title> (a
// tooltip) names both tokens, their word numbers and the weight. Links are word-level (Pharaoh
// "i-j": source word i, target word j): a link marks every cell whose source token belongs to
// word i and whose target token to word j. Predicted links are dots; sure gold links solid
// squares, possible ones dashed squares; a key below the grid explains the marks drawn.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "heed/align/alignment.h"
#include "heed/align/soft_alignment.h"

namespace heed::align {

// What is drawn over one pair's attention; absent marks are left out of the key too.
struct HeatmapMarks {
  std::optional<Alignment> links;     // predicted, zero-based (source word, target word)
  std::optional<GoldAlignment> gold;  // zero-based; possible includes sure
};

// One pair's heatmap as an <svg> element (no XML declaration; valid as a file of its own and
// inline in the HTML page).
std::string heatmap_svg(const SoftAlignment& pair, const HeatmapMarks& marks);

// How a pair's tokens read as a sentence above its heatmap (heed-align plot: the tokenizer's
// detokenizer, so subwords and split punctuation are joined into words; the axes keep the
// tokens). Without it, the tokens separated by spaces.
using SentenceText = std::function<std::string(const std::vector<std::string>& tokens)>;

// An HTML page (XHTML syntax) with a heading "pair ID", the two sentences and the heatmap of each
// pair in turn. marks[k] belongs to pairs[k].
std::string heatmap_html(const std::vector<SoftAlignment>& pairs,
                         const std::vector<HeatmapMarks>& marks, const std::string& title,
                         const SentenceText& sentence_text = {});

// The fill of a cell with this weight: "#rrggbb", white at 0 and darker with every step up to
// 1 (weights outside [0, 1] are clamped).
std::string heatmap_shade(float weight);

// Throws DataError naming file:line when a link's source word is not one of the pair's source
// words or its target word not one of its target words.
void check_links_fit(const Alignment& links, const SoftAlignment& pair, const std::string& file,
                     long long line);

}  // namespace heed::align
