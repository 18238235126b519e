#include "heed/align/heatmap.h"

#include <catch2/catch.hpp>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "heed/common/error.h"

using namespace heed;
using align::SoftAlignment;

namespace {

// Source words: das | Haus￭ tür | <&"'>; target words: the | door | x; the last row is </s>.
SoftAlignment sample_pair() {
  SoftAlignment pair;
  pair.id = 7;
  pair.source = {"das", "Haus\uFFED", "t\u00FCr", "<&\"'>"};
  pair.source_words = {0, 1, 1, 2};
  pair.target = {"the", "door", "x"};
  pair.target_words = {0, 1, 2};
  pair.weights = {{0.9f, 0.05f, 0.05f, 0.0f},
                  {0.1f, 0.3f, 0.6f, 0.0f},
                  {0.0f, 0.0f, 0.2f, 0.8f},
                  {0.25f, 0.25f, 0.25f, 0.25f}};
  return pair;
}

struct Cell {
  double x, y, size;
  std::string fill, title;
};

std::vector<Cell> cells_of(const std::string& svg) {
  static const std::regex cell(
      "<rect class=\"cell\" x=\"([0-9.]+)\" y=\"([0-9.]+)\" width=\"([0-9.]+)\" "
      "height=\"[0-9.]+\" fill=\"(#[0-9a-f]{6})\"><title>([^<]*)</title></rect>");
  std::vector<Cell> cells;
  for (std::sregex_iterator m(svg.begin(), svg.end(), cell), end; m != end; ++m) {
    cells.push_back({std::stod((*m)[1]), std::stod((*m)[2]), std::stod((*m)[3]), (*m)[4], (*m)[5]});
  }
  return cells;
}

// (target token, source token) of the cell under the point, read from its tooltip; the target
// token of the </s> row is -1.
std::pair<int, int> tokens_at(const std::vector<Cell>& cells, double x, double y) {
  static const std::regex tokens("source token ([0-9]+).*(target token ([0-9]+)|end of sentence)");
  for (const Cell& c : cells) {
    if (x > c.x && x < c.x + c.size && y > c.y && y < c.y + c.size) {
      std::smatch m;
      REQUIRE(std::regex_search(c.title, m, tokens));
      return {m[3].matched ? std::stoi(m[3]) : -1, std::stoi(m[1])};
    }
  }
  FAIL("no cell under (" << x << ", " << y << ")");
  return {-1, -1};
}

// The cells (target token, source token) under every mark of a class: circles by their centre,
// squares by theirs.
std::set<std::pair<int, int>> marked(const std::string& svg, const std::string& kind) {
  const std::vector<Cell> cells = cells_of(svg);
  std::set<std::pair<int, int>> at;
  const std::regex circle("class=\"" + kind + "\" cx=\"([0-9.]+)\" cy=\"([0-9.]+)\"");
  const std::regex square("<rect class=\"" + kind +
                          "\" x=\"([0-9.]+)\" y=\"([0-9.]+)\" width=\"([0-9.]+)\"");
  for (std::sregex_iterator m(svg.begin(), svg.end(), circle), end; m != end; ++m) {
    at.insert(tokens_at(cells, std::stod((*m)[1]), std::stod((*m)[2])));
  }
  for (std::sregex_iterator m(svg.begin(), svg.end(), square), end; m != end; ++m) {
    const double half = std::stod((*m)[3]) / 2;
    at.insert(tokens_at(cells, std::stod((*m)[1]) + half, std::stod((*m)[2]) + half));
  }
  return at;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("heatmap: labels are XML-escaped", "[align][fast]") {
  const std::string svg = align::heatmap_svg(sample_pair(), {});
  CHECK(svg.find("&lt;&amp;&quot;&apos;&gt;") != std::string::npos);
  CHECK(svg.find("<&") == std::string::npos);
  CHECK(svg.find("Haus\uFFED") != std::string::npos);
  CHECK(svg.find(">&lt;/s&gt;</text>") != std::string::npos);  // the </s> row's label
}

TEST_CASE("heatmap: one cell per target step and source token, shaded by its weight",
          "[align][fast]") {
  const SoftAlignment pair = sample_pair();
  const std::string svg = align::heatmap_svg(pair, {});
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  const std::vector<Cell> cells = cells_of(svg);
  REQUIRE(cells.size() == (pair.target.size() + 1) * pair.source.size());
  CHECK(count(svg, "class=\"cell\"") == cells.size());
  for (size_t r = 0; r < pair.weights.size(); ++r) {
    for (size_t c = 0; c < pair.source.size(); ++c) {
      const Cell& cell = cells[r * pair.source.size() + c];
      CHECK(cell.fill == align::heatmap_shade(pair.weights[r][c]));
      const int target = r < pair.target.size() ? int(r) : -1;
      CHECK(tokens_at(cells, cell.x + 1, cell.y + 1) == std::pair<int, int>(target, int(c)));
    }
  }
  CHECK(cells[1].title ==
        "Haus\uFFED (source token 1, word 1) \u2192 the (target token 0, word 0): 0.050");
  CHECK(cells.back().title ==
        "&lt;&amp;&quot;&apos;&gt; (source token 3, word 2) \u2192 &lt;/s&gt; (end of sentence): "
        "0.250");
  // No marks given: none drawn, and no key.
  CHECK(count(svg, "class=\"link\"") == 0);
  CHECK(count(svg, "class=\"key\"") == 0);
}

TEST_CASE("heatmap: the shade darkens monotonically from white at 0", "[align][fast]") {
  CHECK(align::heatmap_shade(0) == "#ffffff");
  CHECK(align::heatmap_shade(-1) == "#ffffff");
  CHECK(align::heatmap_shade(2) == align::heatmap_shade(1));
  const auto channels = [](const std::string& colour) {
    std::vector<int> rgb;
    for (int k = 0; k < 3; ++k) rgb.push_back(std::stoi(colour.substr(1 + 2 * k, 2), nullptr, 16));
    return rgb;
  };
  std::vector<int> previous = channels(align::heatmap_shade(0));
  for (int step = 1; step <= 100; ++step) {
    const std::vector<int> rgb = channels(align::heatmap_shade(step / 100.0f));
    for (int k = 0; k < 3; ++k) CHECK(rgb[k] <= previous[k]);
    CHECK(rgb[0] + rgb[1] + rgb[2] < previous[0] + previous[1] + previous[2]);
    previous = rgb;
  }
}

TEST_CASE("heatmap: word links mark every cell of their words' tokens", "[align][fast]") {
  align::HeatmapMarks marks;
  marks.links = align::parse_pharaoh("1-1 2-2", "links", 1);  // Haus￭ tür–door, <&"'>–x
  marks.gold = align::parse_talp("0-0 1p1", "gold", 1, /*one_based=*/false);
  const std::string svg = align::heatmap_svg(sample_pair(), marks);
  using Cells = std::set<std::pair<int, int>>;  // (target token, source token)
  CHECK(marked(svg, "link") == Cells{{1, 1}, {1, 2}, {2, 3}});
  CHECK(marked(svg, "sure") == Cells{{0, 0}});
  CHECK(marked(svg, "possible") == Cells{{1, 1}, {1, 2}});
  // The tooltips say so too, and the key explains each kind of mark.
  CHECK(count(svg, "; predicted link</title>") == 3);
  CHECK(count(svg, "; sure gold link</title>") == 1);
  CHECK(count(svg, "; possible gold link; predicted link</title>") == 2);
  CHECK(svg.find(">predicted link</text>") != std::string::npos);
  CHECK(svg.find(">sure gold link</text>") != std::string::npos);
  CHECK(svg.find(">possible gold link</text>") != std::string::npos);
  CHECK(count(svg, "stroke-dasharray") == 3);  // the two possible cells and the key

  // Only the links given: only their entry in the key.
  align::HeatmapMarks links_only;
  links_only.links = marks.links;
  const std::string plain = align::heatmap_svg(sample_pair(), links_only);
  CHECK(plain.find(">predicted link</text>") != std::string::npos);
  CHECK(plain.find("gold link</text>") == std::string::npos);
}

TEST_CASE("heatmap: links outside the pair are refused with file and line", "[align][fast]") {
  const SoftAlignment pair = sample_pair();  // 3 source words, 3 target words
  CHECK_NOTHROW(align::check_links_fit(align::parse_pharaoh("2-2 0-0", "a", 1), pair, "a", 1));
  CHECK_THROWS_WITH(align::check_links_fit(align::parse_pharaoh("0-0 3-1", "a", 4), pair, "a", 4),
                    Catch::StartsWith("a:4: link 3-1 is outside pair 7, which has 3 source and 3 "
                                      "target words"));
  CHECK_THROWS_AS(align::check_links_fit(align::parse_pharaoh("0-3", "a", 1), pair, "a", 1),
                  DataError);
}

TEST_CASE("heatmap: long labels are cut, tooltips keep the token", "[align][fast]") {
  SoftAlignment pair;
  const std::string long_token(40, 'a');
  pair.source = {long_token};
  pair.source_words = {0};
  pair.target = {};
  pair.weights = {{1.0f}};
  const std::string svg = align::heatmap_svg(pair, {});
  CHECK(svg.find(">" + std::string(23, 'a') + "\u2026</text>") != std::string::npos);
  CHECK(svg.find("<title>" + long_token + " (source token 0") != std::string::npos);
  CHECK(cells_of(svg).size() == 1);

  SoftAlignment empty_source;  // nothing to attend to: no cells, still a drawing
  empty_source.target = {"a"};
  empty_source.target_words = {0};
  empty_source.weights = {{}, {}};
  const std::string empty = align::heatmap_svg(empty_source, {});
  CHECK(cells_of(empty).empty());
  CHECK(empty.find("</svg>") != std::string::npos);
}

TEST_CASE("heatmap: joiners are shown as a square fonts have, tooltips keep them",
          "[align][fast]") {
  SoftAlignment pair;
  pair.source = {"Haus\uFFED", "\uFFEDt\uFFED"};
  pair.source_words = {0, 0};
  pair.target = {"house"};
  pair.target_words = {0};
  pair.weights = {{0.5f, 0.5f}, {0.5f, 0.5f}};
  const std::string svg = align::heatmap_svg(pair, {});
  CHECK(svg.find(">Haus\u25AA</text>") != std::string::npos);
  CHECK(svg.find(">\u25AAt\u25AA</text>") != std::string::npos);
  CHECK(svg.find("<title>Haus\uFFED (source token 0") != std::string::npos);
  const std::string html = align::heatmap_html({pair}, {{}}, "t");
  CHECK(html.find("source: Haus\u25AA \u25AAt\u25AA<br/>") != std::string::npos);
  CHECK(count(html, "\uFFED") == count(svg, "\uFFED"));  // only in the tooltips
  // Given a way to read tokens as text (heed-align plot: the detokenizer), the sentences use it,
  // escaped; the axes keep the tokens.
  const std::string page =
      align::heatmap_html({pair}, {{}}, "t", [](const std::vector<std::string>& tokens) {
        return tokens.size() == 2 ? std::string("Haus<t>") : std::string("house");
      });
  CHECK(page.find("source: Haus&lt;t&gt;<br/>\ntarget: house</p>") != std::string::npos);
  CHECK(page.find(">Haus\u25AA</text>") != std::string::npos);
}

TEST_CASE("heatmap: an HTML page holds each pair under its heading", "[align][fast]") {
  SoftAlignment second = sample_pair();
  second.id = 9;
  const std::string html = align::heatmap_html({sample_pair(), second}, {{}, {}}, "a <title>");
  CHECK(html.rfind("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"", 0) == 0);
  CHECK(count(html, "<svg ") == 2);
  CHECK(html.find("<section id=\"pair-7\">\n<h2>pair 7</h2>") != std::string::npos);
  CHECK(html.find("<section id=\"pair-9\">\n<h2>pair 9</h2>") != std::string::npos);
  CHECK(html.find("<h1>a &lt;title&gt;</h1>") != std::string::npos);
  CHECK(html.find("target: the door x</p>") != std::string::npos);
  CHECK(count(html, "class=\"cell\"") == 2 * 16);
  CHECK_THROWS_AS(align::heatmap_html({second}, {}, "t"), InternalError);
}
