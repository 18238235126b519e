// heed-bench-attn --plot (lib/plot.h) on synthetic results: well-formed
// markup, one polyline per series (mechanism × the other dimensions that vary), the fitted
// exponents in the legend, decade ticks on both log axes, the shared settings in the title.
#include "bench-attn/plot.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <regex>
#include <string>
#include <vector>

using namespace heed::bench_attn;

namespace {

// Times t = c · S^exponent at S = 10, 100, 1000.
void add_series(std::vector<BenchResult>& results, const std::string& mechanism, BenchMode mode,
                double c, double exponent) {
  for (const double s : {10.0, 100.0, 1000.0}) {
    BenchResult r;
    r.point.mechanism = mechanism;
    r.point.mode = mode;
    r.point.batch = 64;
    r.point.hidden = 512;
    r.point.source_length = int64_t(s);
    r.median_ms = c * std::pow(s, exponent);
    results.push_back(r);
  }
}

size_t count(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return size_t(
      std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

// The texts of the <text class="cls"> elements, in order.
std::vector<std::string> texts(const std::string& svg, const std::string& cls) {
  std::vector<std::string> found;
  const std::regex re("<text class=\"" + cls + "\"[^>]*>([^<]*)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator();
       ++it) {
    found.push_back((*it)[1]);
  }
  return found;
}

// Every element closed in order (a start tag, its end tag or a self-closing tag), one root.
bool balanced(const std::string& svg) {
  std::vector<std::string> open;
  int roots = 0;
  const std::regex tag("<(/?)([a-z]+)[^>]*?(/?)>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator();
       ++it) {
    const std::string closing = (*it)[1], name = (*it)[2], self = (*it)[3];
    if (open.empty() && closing.empty()) ++roots;
    if (!closing.empty()) {
      if (open.empty() || open.back() != name) return false;
      open.pop_back();
    } else if (self.empty()) {
      open.push_back(name);
    }
  }
  return open.empty() && roots == 1;
}

}  // namespace

TEST_CASE("plot: one polyline per mechanism, exponents in the legend, log axes",
          "[bench-attn][fast]") {
  std::vector<BenchResult> results;
  add_series(results, "dot", BenchMode::kAllSteps, 0.001, 2);  // 0.1 … 1000 ms
  add_series(results, "linear", BenchMode::kAllSteps, 0.5, 0);
  const std::string svg = bench_plot_svg(results);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(balanced(svg));
  CHECK(count(svg, "<polyline ") == 2);
  CHECK(count(svg, "<circle class=\"marker\"") == 6);
  CHECK(texts(svg, "legend") == std::vector<std::string>{"dot: 2.00", "linear: 0.00"});
  // S from 10 to 1000: decades 10, 100, 1000; time from 0.1 to 1000 ms: five decades.
  CHECK(texts(svg, "x-tick-label") == std::vector<std::string>{"10", "100", "1000"});
  CHECK(texts(svg, "y-tick-label") == std::vector<std::string>{"0.1", "1", "10", "100", "1000"});
  CHECK(count(svg, "class=\"x-minor-tick\"") == 2 * 8);
  // Every setting is shared: all under the title, none in the legend.
  CHECK(texts(svg, "title") ==
        std::vector<std::string>{"heed-bench-attn: median time against source length"});
  CHECK(texts(svg, "settings") ==
        std::vector<std::string>{"mode=all-steps, pass=forward, precision=f32, threads=1, "
                                 "batch=64, target_length=1, hidden=512"});
}

TEST_CASE("plot: a dimension with several values draws one series per value",
          "[bench-attn][fast]") {
  std::vector<BenchResult> results;
  add_series(results, "dot", BenchMode::kAllSteps, 0.01, 1);
  add_series(results, "dot", BenchMode::kStep, 0.1, 1);
  BenchResult zero = results.back();  // a time a log axis cannot place: left out
  zero.median_ms = 0;
  results.push_back(zero);
  const std::string svg = bench_plot_svg(results);
  CHECK(balanced(svg));
  CHECK(count(svg, "<polyline ") == 2);
  CHECK(count(svg, "<circle class=\"marker\"") == 6);
  CHECK(texts(svg, "legend") ==
        std::vector<std::string>{"dot (mode=all-steps): 1.00", "dot (mode=step): 1.00"});
  CHECK(texts(svg, "settings")[0].find("mode=") == std::string::npos);
}

TEST_CASE("plot: a single source length has no exponent", "[bench-attn][fast]") {
  std::vector<BenchResult> results(1);
  results[0].point.mechanism = "dot";
  results[0].point.source_length = 50;
  results[0].median_ms = 2;
  const std::string svg = bench_plot_svg(results);
  CHECK(balanced(svg));
  CHECK(texts(svg, "legend") == std::vector<std::string>{"dot: -"});
  CHECK(texts(svg, "x-tick-label") == std::vector<std::string>{"10", "100"});
}
