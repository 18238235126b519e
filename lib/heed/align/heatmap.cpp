#include "heed/align/heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/common/svg.h"

namespace heed::align {
namespace {

// Geometry, in SVG user units (pixels at 100 %).
constexpr double kCell = 22;           // side of a cell
constexpr double kFontSize = 12;       // labels
constexpr double kLabelGap = 6;        // between a label and the grid
constexpr double kMinLeft = 72;        // room for the caption in the top-left corner
constexpr double kBarGap = 18;         // grid to colour bar
constexpr double kBarWidth = 14;       // colour bar
constexpr int kBarSteps = 40;          // bands of the colour bar
constexpr size_t kMaxLabelChars = 24;  // longer labels are cut (the tooltip has the whole token)
const double kSin60 = std::sqrt(3.0) / 2;

// The darkest shade (weight 1): matplotlib's "Blues" at its end.
constexpr int kDark[3] = {8, 48, 107};
const char* const kLinkColour = "#e03131";
const char* const kGoldColour = "#f59f00";

// A token as it is shown: the tokenizer's joiner U+FFED (text/markers.h) has no glyph in the
// fonts browsers fall back to on Debian (a box is drawn), so it is shown as U+25AA, the small
// black square DejaVu Sans and the usual system fonts have; the tooltips keep the token exact.
std::string displayed(std::string_view token) {
  static constexpr std::string_view kJoiner = "\xEF\xBF\xAD", kShown = "\xE2\x96\xAA";
  std::string out(token);
  for (size_t at = out.find(kJoiner); at != std::string::npos; at = out.find(kJoiner, at)) {
    out.replace(at, kJoiner.size(), kShown);
    at += kShown.size();
  }
  return out;
}

// A token as an axis label: at most kMaxLabelChars characters, a cut one ending in "…".
std::string axis_label(std::string_view raw) {
  const std::string shown = displayed(raw);
  const std::string_view token = shown;
  size_t i = 0, chars = 0;
  while (i < token.size() && chars < kMaxLabelChars - 1) {
    next_code_point_checked(token, i);
    ++chars;
  }
  if (i >= token.size()) return std::string(token);
  size_t rest = i, more = 0;
  while (rest < token.size() && more < 2) {
    next_code_point_checked(token, rest);
    ++more;
  }
  if (more < 2) return std::string(token);  // exactly kMaxLabelChars characters
  return std::string(token.substr(0, i)) + "\u2026";
}

// Estimated width of text at kFontSize in a sans-serif font: no font metrics are at hand, so
// wide (East Asian) characters count as a full em, combining marks as nothing, others as 0.68 em
// (generous: DejaVu Sans, the usual sans-serif on Linux, is wider than Helvetica).
double text_width(std::string_view text) {
  double width = 0;
  for (size_t i = 0; i < text.size();) {
    const char32_t cp = next_code_point_checked(text, i);
    const bool combining = cp >= 0x300 && cp < 0x370;
    const bool wide = (cp >= 0x1100 && cp < 0x1160) || (cp >= 0x2E80 && cp < 0xA4D0) ||
                      (cp >= 0xAC00 && cp < 0xD7A4) || (cp >= 0xF900 && cp < 0xFB00) ||
                      (cp >= 0xFF00 && cp < 0xFF61) || cp >= 0x1F300;
    width += combining ? 0 : wide ? kFontSize : 0.68 * kFontSize;
  }
  return width;
}

int word_count(const std::vector<int>& words) {
  return words.empty() ? 0 : words.back() + 1;
}

bool contains(const Alignment& sorted, int source, int target) {
  return std::binary_search(sorted.begin(), sorted.end(), Link{source, target});
}

std::string join_tokens(const std::vector<std::string>& tokens) {
  std::string out;
  for (const auto& t : tokens) out += (out.empty() ? "" : " ") + xml_escape(displayed(t));
  return out;
}

// The colour bar right of the grid: bands from 1 (top) to 0, ticks every quarter, a caption.
void colour_bar(svg::Writer& w, double x, double top, double height) {
  w.open("g", {{"shape-rendering", "crispEdges"}});
  const double band = height / kBarSteps;
  for (int k = 0; k < kBarSteps; ++k) {
    const float weight = 1.0f - (k + 0.5f) / kBarSteps;
    w.rect({{"class", "bar"},
            {"x", x},
            {"y", top + k * band},
            {"width", kBarWidth},
            {"height", band + 0.5},
            {"fill", heatmap_shade(weight)}});
  }
  w.close();
  const svg::Attributes stroke = {{"stroke", "#555"}, {"stroke-width", 0.75}};
  w.rect(svg::concat(
      {{"x", x}, {"y", top}, {"width", kBarWidth}, {"height", height}, {"fill", "none"}}, stroke));
  for (int tick = 0; tick <= 4; ++tick) {
    const double y = top + height * (1 - tick / 4.0);
    w.line(svg::concat({{"x1", x + kBarWidth}, {"y1", y}, {"x2", x + kBarWidth + 4}, {"y2", y}},
                       stroke));
    w.text({{"x", x + kBarWidth + 6}, {"y", y}, {"dy", ".35em"}, {"font-size", 10}},
           w.number(tick / 4.0));
  }
  const double caption_x = x + kBarWidth + 38;
  w.text({{"transform", w.translate(caption_x, top + height / 2) + " rotate(90)"},
          {"text-anchor", "middle"},
          {"font-size", 10},
          {"fill", "#555"}},
         "attention weight");
}

}  // namespace

std::string heatmap_shade(float weight) {
  const double w = std::isnan(weight) ? 0.0 : std::clamp(double(weight), 0.0, 1.0);
  char colour[8];
  int rgb[3];
  for (int k = 0; k < 3; ++k) rgb[k] = static_cast<int>(std::lround(255 + (kDark[k] - 255) * w));
  std::snprintf(colour, sizeof colour, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return colour;
}

void check_links_fit(const Alignment& links, const SoftAlignment& pair, const std::string& file,
                     long long line) {
  const int source_words = word_count(pair.source_words);
  const int target_words = word_count(pair.target_words);
  for (const Link& link : links) {
    if (link.source >= source_words || link.target >= target_words) {
      throw DataError(at_line(
          file, line,
          "link " + std::to_string(link.source) + "-" + std::to_string(link.target) +
              " is outside pair " + std::to_string(pair.id) + ", which has " +
              std::to_string(source_words) + " source and " + std::to_string(target_words) +
              " target words (zero-based links: source 0-" + std::to_string(source_words - 1) +
              ", target 0-" + std::to_string(target_words - 1) + ")"));
    }
  }
}

std::string heatmap_svg(const SoftAlignment& pair, const HeatmapMarks& marks) {
  const size_t columns = pair.source.size();
  const size_t rows = pair.weights.size();  // target tokens + </s>
  Alignment links = marks.links.value_or(Alignment{});
  GoldAlignment gold = marks.gold.value_or(GoldAlignment{});
  normalize(links);
  normalize(gold.sure);
  normalize(gold.possible);

  std::vector<std::string> source_labels, target_labels;
  double widest_source = 0, widest_target = text_width("</s>");
  for (const auto& token : pair.source) {
    source_labels.push_back(axis_label(token));
    widest_source = std::max(widest_source, text_width(source_labels.back()));
  }
  for (const auto& token : pair.target) {
    target_labels.push_back(axis_label(token));
    widest_target = std::max(widest_target, text_width(target_labels.back()));
  }

  // Source labels rise at 60 degrees from their columns; target labels end left of their rows.
  const double left = std::max(kMinLeft, widest_target + 2 * kLabelGap);
  const double top = kLabelGap + widest_source * kSin60 + 2 * kFontSize;
  const double grid_right = left + columns * kCell;
  const double grid_bottom = top + rows * kCell;
  double labels_right = grid_right;
  for (size_t c = 0; c < columns; ++c) {
    labels_right = std::max(labels_right, left + (c + 0.5) * kCell + 4 +
                                              0.5 * text_width(source_labels[c]) + kFontSize);
  }
  const double bar_x = grid_right + kBarGap;
  const double bar_height = std::clamp(rows * kCell, 100.0, 220.0);
  const double bar_right = bar_x + kBarWidth + 46;

  // The marks, drawn with their position (and class) first: a dot, a solid or dashed square.
  const auto dot = [](svg::Writer& w, const svg::Attributes& at) {
    w.circle(svg::concat(
        {{"r", kCell * 0.2}, {"fill", kLinkColour}, {"stroke", "#fff"}, {"stroke-width", 1}}, at));
  };
  const auto square = [](svg::Writer& w, const svg::Attributes& at, bool dashed) {
    svg::Attributes attributes = svg::concat(at, {{"width", kCell - 4},
                                                  {"height", kCell - 4},
                                                  {"fill", "none"},
                                                  {"stroke", kGoldColour},
                                                  {"stroke-width", 2}});
    if (dashed) attributes.push_back({"stroke-dasharray", "3,2"});
    w.rect(attributes);
  };
  // The marks of a cell: its words' links.
  struct CellMarks {
    bool sure = false, possible = false, link = false;
  };
  const auto marks_at = [&](size_t r, size_t c) {
    CellMarks m;
    if (r == pair.target.size()) return m;  // the </s> row
    const int i = pair.source_words[c], j = pair.target_words[r];
    m.sure = contains(gold.sure, i, j);
    m.possible = !m.sure && contains(gold.possible, i, j);
    m.link = contains(links, i, j);
    return m;
  };

  // The key under the grid: one entry per kind of mark given, drawn in a row.
  struct KeyEntry {
    std::function<void(svg::Writer&)> symbol;  // drawn at the origin
    std::string text;
    double x = 0;
  };
  const svg::Attributes key_corner = {{"x", -kCell / 2 + 2}, {"y", -kCell / 2 + 2}};
  std::vector<KeyEntry> key;
  if (marks.links) key.push_back({[&](svg::Writer& w) { dot(w, {}); }, "predicted link"});
  if (marks.gold) {
    key.push_back({[&](svg::Writer& w) { square(w, key_corner, false); }, "sure gold link"});
    key.push_back({[&](svg::Writer& w) { square(w, key_corner, true); }, "possible gold link"});
  }
  const double key_y = std::max(grid_bottom, top + bar_height + 8) + kCell;
  double key_right = 0;
  for (KeyEntry& entry : key) {
    entry.x = key_right + kLabelGap + kCell / 2;
    key_right = entry.x + kCell / 2 + 4 + text_width(entry.text) + kCell;
  }
  const double width = std::ceil(std::max({labels_right, bar_right, key_right}) + kLabelGap);
  const double height = std::ceil(key.empty() ? key_y - kCell / 2 : key_y + kCell);

  svg::Writer w;
  w.document(width, height, {{"font-family", "sans-serif"}, {"font-size", kFontSize}});
  w.newline();
  w.title("attention of pair " + std::to_string(pair.id));
  w.newline();
  w.rect({{"width", "100%"}, {"height", "100%"}, {"fill", "#fff"}});
  w.newline();
  w.text({{"x", kLabelGap},
          {"y", kFontSize + kLabelGap},
          {"class", "caption"},
          {"font-weight", "bold"}},
         "pair " + std::to_string(pair.id));
  w.newline();

  // Axis labels.
  w.open("g", {{"class", "source-labels"}});
  for (size_t c = 0; c < columns; ++c) {
    w.text({{"transform",
             w.translate(left + (c + 0.5) * kCell + 4, top - kLabelGap) + " rotate(-60)"}},
           source_labels[c]);
  }
  w.close();
  w.newline();
  w.open("g", {{"class", "target-labels"}, {"text-anchor", "end"}});
  for (size_t r = 0; r < rows; ++r) {
    const bool end = r == pair.target.size();
    svg::Attributes at = {{"x", left - kLabelGap}, {"y", top + (r + 0.5) * kCell}, {"dy", ".35em"}};
    if (end) at.insert(at.end(), {{"font-style", "italic"}, {"fill", "#666"}});
    w.text(at, end ? "</s>" : target_labels[r]);
  }
  w.close();
  w.newline();

  // Cells, each with a tooltip naming both tokens, the weight and the marks.
  w.open("g", {{"class", "cells"}, {"stroke", "#ddd"}, {"stroke-width", 0.5}});
  w.newline();
  char weight_text[32];
  for (size_t r = 0; r < rows; ++r) {
    const bool end = r == pair.target.size();
    const std::string target_name = end ? "</s> (end of sentence)"
                                        : pair.target[r] + " (target token " + std::to_string(r) +
                                              ", word " + std::to_string(pair.target_words[r]) +
                                              ")";
    for (size_t c = 0; c < columns; ++c) {
      const float weight = pair.weights[r][c];
      std::snprintf(weight_text, sizeof weight_text, "%.3f", double(weight));
      const CellMarks m = marks_at(r, c);
      const std::string notes = std::string(m.sure ? "; sure gold link" : "") +
                                (m.possible ? "; possible gold link" : "") +
                                (m.link ? "; predicted link" : "");
      w.open("rect", {{"class", "cell"},
                      {"x", left + c * kCell},
                      {"y", top + r * kCell},
                      {"width", kCell},
                      {"height", kCell},
                      {"fill", heatmap_shade(weight)}});
      w.title(pair.source[c] + " (source token " + std::to_string(c) + ", word " +
              std::to_string(pair.source_words[c]) + ") \u2192 " + target_name + ": " +
              weight_text + notes);
      w.close();
    }
    w.newline();
  }
  w.close();
  w.newline();

  // The marks over the cells.
  w.open("g", {{"class", "marks"}});
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < columns; ++c) {
      const CellMarks m = marks_at(r, c);
      const double x = left + c * kCell, y = top + r * kCell;
      if (m.sure || m.possible) {
        square(w, {{"class", m.sure ? "sure" : "possible"}, {"x", x + 2}, {"y", y + 2}},
               m.possible);
      }
      if (m.link) dot(w, {{"class", "link"}, {"cx", x + kCell / 2}, {"cy", y + kCell / 2}});
    }
  }
  w.close();
  w.newline();
  colour_bar(w, bar_x, top, bar_height);
  w.newline();

  if (!key.empty()) {
    w.open("g", {{"class", "key"}});
    for (const KeyEntry& entry : key) {
      w.open("g", {{"transform", w.translate(entry.x, key_y)}});
      entry.symbol(w);
      w.text({{"x", kCell / 2 + 4}, {"dy", ".35em"}}, entry.text);
      w.close();
    }
    w.close();
    w.newline();
  }
  return w.finish();
}

std::string heatmap_html(const std::vector<SoftAlignment>& pairs,
                         const std::vector<HeatmapMarks>& marks, const std::string& title,
                         const SentenceText& sentence_text) {
  const auto sentence = [&sentence_text](const std::vector<std::string>& tokens) {
    return sentence_text ? xml_escape(sentence_text(tokens)) : join_tokens(tokens);
  };
  if (marks.size() != pairs.size()) {
    throw InternalError("heatmap_html: " + std::to_string(pairs.size()) + " pairs but " +
                        std::to_string(marks.size()) + " sets of marks");
  }
  // XHTML syntax (closed empty elements, quoted attributes, the XHTML namespace) so the page is
  // well-formed XML as well as HTML5.
  std::string html =
      "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      "<meta charset=\"utf-8\"/>\n<title>" +
      xml_escape(title) +
      "</title>\n<style>\nbody { font-family: sans-serif; margin: 1em 2em; }\n"
      "h2 { font-size: 1.1em; margin: 2em 0 0.3em; }\n"
      "p.sentences { margin: 0 0 0.5em; color: #444; }\n"
      "h1 { font-size: 1.4em; }\n"
      "svg { display: block; }\n"
      "svg .caption { display: none; }\n"  // the heading above names the pair
      "</style>\n</head>\n<body>\n<h1>" +
      xml_escape(title) + "</h1>\n";
  for (size_t k = 0; k < pairs.size(); ++k) {
    const SoftAlignment& pair = pairs[k];
    const std::string id = std::to_string(pair.id);
    html += "<section id=\"pair-" + id + "\">\n<h2>pair " + id + "</h2>\n" +
            "<p class=\"sentences\">source: " + sentence(pair.source) +
            "<br/>\ntarget: " + sentence(pair.target) + "</p>\n" + heatmap_svg(pair, marks[k]) +
            "</section>\n";
  }
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace heed::align
