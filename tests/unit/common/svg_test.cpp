#include "heed/common/svg.h"

#include <catch2/catch.hpp>
#include <limits>
#include <string>

#include "heed/common/error.h"
#include "heed/common/strings.h"

using namespace heed;

TEST_CASE("svg: a document with its elements in order, attributes as given", "[common][fast]") {
  svg::Writer w;
  w.document(120.5, 80, {{"font-family", "sans-serif"}, {"font-size", 12}});
  w.newline();
  w.rect({{"class", "cell"}, {"x", 1.0 / 3}, {"y", -0.001}, {"width", 22}, {"fill", "#fff"}});
  w.line({{"x1", 0}, {"y1", 2.5}, {"x2", 10}, {"y2", 2.5}});
  w.open("g", {{"transform", w.translate(3, 4.25) + " rotate(-60)"}});
  w.text({{"x", 1}}, "a<b");
  w.open("circle", {{"r", 3}});
  w.title("t");
  w.close();
  w.close();
  w.polyline({{0, 1}, {2.346, 3}}, {{"fill", "none"}});
  CHECK(w.finish() ==
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"120.5\" height=\"80\" "
        "viewBox=\"0 0 120.5 80\" font-family=\"sans-serif\" font-size=\"12\">\n"
        "<rect class=\"cell\" x=\"0.33\" y=\"0\" width=\"22\" fill=\"#fff\"/>"
        "<line x1=\"0\" y1=\"2.5\" x2=\"10\" y2=\"2.5\"/>"
        "<g transform=\"translate(3,4.25) rotate(-60)\"><text x=\"1\">a&lt;b</text>"
        "<circle r=\"3\"><title>t</title></circle></g>"
        "<polyline fill=\"none\" points=\"0,1 2.35,3\"/></svg>\n");
}

TEST_CASE("svg: text and attribute values are escaped", "[common][fast]") {
  svg::Writer w;
  w.document(1, 1);
  w.text({{"class", "a\"b'<&>"}}, "<&\"'>\x01");
  const std::string svg = w.finish();
  CHECK(svg.find("class=\"a&quot;b&apos;&lt;&amp;&gt;\"") != std::string::npos);
  CHECK(svg.find(">&lt;&amp;&quot;&apos;&gt;\uFFFD</text>") != std::string::npos);
}

TEST_CASE("svg: numbers have at most two decimals, no trailing zeros", "[common][fast]") {
  using svg::Writer;
  CHECK(Writer::number(22) == "22");
  CHECK(Writer::number(4.4) == "4.4");
  CHECK(Writer::number(911.546) == "911.55");
  CHECK(Writer::number(100.001) == "100");
  CHECK(Writer::number(-0.001) == "0");
  CHECK(Writer::number(-1.5) == "-1.5");
  CHECK(Writer::translate(3, -0.25) == "translate(3,-0.25)");
  CHECK_THROWS_AS(Writer::number(std::numeric_limits<double>::quiet_NaN()), InternalError);
  CHECK_THROWS_AS(Writer::number(std::numeric_limits<double>::infinity()), InternalError);
}

TEST_CASE("svg: finish closes what is open; close needs an open element", "[common][fast]") {
  svg::Writer w;
  CHECK_THROWS_AS(w.close(), InternalError);
  w.document(10, 10);
  w.open("g");
  w.open("g", {{"class", "inner"}});
  const std::string svg = w.finish();
  CHECK(ends_with(svg, "</g></g></svg>\n"));
  CHECK(svg.find("<g><g class=\"inner\">") != std::string::npos);
}

TEST_CASE("svg: concat keeps both lists in order", "[common][fast]") {
  const svg::Attributes style = {{"stroke", "#333"}, {"stroke-width", 1}};
  const svg::Attributes all = svg::concat({{"class", "tick"}, {"x1", 2}}, style);
  REQUIRE(all.size() == 4);
  CHECK(all[0].name == "class");
  CHECK(all[1].value.number() == 2);
  CHECK(all[3].name == "stroke-width");
}
