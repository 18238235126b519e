#include "plot.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "heed/common/strings.h"
#include "heed/common/svg.h"

namespace heed::bench_attn {
namespace {

// Geometry, in SVG user units (pixels at 100 %).
constexpr double kLeft = 78, kTop = 56, kPlotWidth = 520, kPlotHeight = 360, kBottom = 52;
constexpr double kLegendGap = 24, kLegendLine = 18, kRightMargin = 16;
constexpr double kFontSize = 12;
// Width of a character of ASCII text at kFontSize, generously (no font metrics at hand): the
// legend and the settings line are laid out with it so that they are never cut off.
constexpr double kCharWidth = 0.62 * kFontSize;

// Beyond ten series (svg::series_colour) the colours repeat with another dash pattern.
const char* const kDashes[] = {"", "6 3", "2 2"};

// A dimension of the grid besides the mechanism and the source length: its name in the title
// and the legend, and a point's value ("" where the mechanism has no such option).
struct Dimension {
  const char* name;
  std::function<std::string(const BenchPoint&)> value;
};

const std::vector<Dimension>& dimensions() {
  static const std::vector<Dimension> all = {
      {"mode", [](const BenchPoint& p) { return to_string(p.mode); }},
      {"pass", [](const BenchPoint& p) { return to_string(p.pass); }},
      {"precision", [](const BenchPoint& p) { return onednn::precision_name(p.precision); }},
      {"threads", [](const BenchPoint& p) { return std::to_string(p.threads); }},
      {"batch", [](const BenchPoint& p) { return std::to_string(p.batch); }},
      {"target_length", [](const BenchPoint& p) { return std::to_string(p.target_length); }},
      {"hidden", [](const BenchPoint& p) { return std::to_string(p.hidden); }},
      {"heads", [](const BenchPoint& p) { return p.heads > 0 ? std::to_string(p.heads) : ""; }},
      {"window", [](const BenchPoint& p) { return p.window > 0 ? std::to_string(p.window) : ""; }},
      {"precompute",
       [](const BenchPoint& p) {
         return p.precompute < 0 ? std::string() : p.precompute ? "on" : "off";
       }},
  };
  return all;
}

struct Series {
  BenchPoint point;                           // the group (its source length is meaningless)
  std::vector<std::pair<double, double>> xy;  // (S, median ms), in order of S
};

// A log axis over [10^low, 10^high] (at least one decade).
struct LogAxis {
  int low = 0, high = 1;
  static LogAxis spanning(double min, double max) {
    LogAxis axis;
    axis.low = int(std::floor(std::log10(min)));
    axis.high = std::max(axis.low + 1, int(std::ceil(std::log10(max))));
    return axis;
  }
  // Where value falls, 0 at 10^low and 1 at 10^high.
  double at(double value) const { return (std::log10(value) - low) / double(high - low); }
};

// 10^k written out: 0.001, 1, 1000; beyond six digits 1e7.
std::string decade_label(int k) {
  if (k >= 0 && k <= 6) return "1" + std::string(size_t(k), '0');
  if (k < 0 && k >= -6) return "0." + std::string(size_t(-k - 1), '0') + "1";
  return "1e" + std::to_string(k);
}

// A labelled element: its class first, as the tests and readers look elements up by it.
void text(svg::Writer& w, double x, double y, const char* cls, const char* anchor,
          const std::string& content, const svg::Attributes& more = {}) {
  w.text(svg::concat({{"class", cls}, {"x", x}, {"y", y}, {"text-anchor", anchor}}, more), content);
  w.newline();
}

void line(svg::Writer& w, double x1, double y1, double x2, double y2, const char* cls,
          const svg::Attributes& style) {
  w.line(svg::concat({{"class", cls}, {"x1", x1}, {"y1", y1}, {"x2", x2}, {"y2", y2}}, style));
  w.newline();
}

// Calls tick(value, k, major) for each tick of the axis: a major one at each power of ten 10^k,
// minor ones at 2…9 times it (up to the top decade).
void for_each_tick(const LogAxis& axis, const std::function<void(double, int, bool)>& tick) {
  for (int k = axis.low; k <= axis.high; ++k) {
    tick(std::pow(10.0, k), k, true);
    for (int m = 2; k < axis.high && m <= 9; ++m) tick(m * std::pow(10.0, k), k, false);
  }
}

}  // namespace

std::string bench_plot_svg(const std::vector<BenchResult>& results) {
  // The series, in the order first seen, keyed by the mechanism and every dimension.
  std::vector<Series> series;
  std::map<std::vector<std::string>, size_t> index;
  for (const BenchResult& r : results) {
    if (!(r.median_ms > 0) || !std::isfinite(r.median_ms)) continue;
    std::vector<std::string> key = {r.point.mechanism};
    for (const Dimension& dim : dimensions()) key.push_back(dim.value(r.point));
    const auto [it, fresh] = index.try_emplace(key, series.size());
    if (fresh) series.push_back(Series{r.point, {}});
    series[it->second].xy.emplace_back(double(r.point.source_length), r.median_ms);
  }
  for (Series& s : series) std::stable_sort(s.xy.begin(), s.xy.end());

  // Dimensions with one value (where they apply) go in the settings line under the title, the
  // others in the legend.
  std::vector<std::string> shared;
  std::vector<const Dimension*> varying;
  for (const Dimension& dim : dimensions()) {
    std::set<std::string> values;
    for (const Series& s : series) {
      if (!dim.value(s.point).empty()) values.insert(dim.value(s.point));
    }
    if (values.size() == 1) shared.push_back(std::string(dim.name) + "=" + *values.begin());
    if (values.size() > 1) varying.push_back(&dim);
  }
  const std::string settings_line = join(shared, ", ");

  // Each series' legend entry: its mechanism, its values of the varying dimensions, its
  // growth exponent.
  std::vector<std::string> labels;
  size_t longest_label = std::string("mechanism: time exponent in S").size();
  for (const Series& s : series) {
    std::vector<double> x, y;
    for (const auto& [length, ms] : s.xy) {
      x.push_back(length);
      y.push_back(ms);
    }
    const std::set<double> lengths(x.begin(), x.end());
    const double exponent =
        lengths.size() > 1 ? log_log_slope(x, y) : std::numeric_limits<double>::quiet_NaN();
    std::vector<std::string> settings;
    for (const Dimension* dim : varying) {
      if (!dim->value(s.point).empty()) settings.push_back(dim->name + ("=" + dim->value(s.point)));
    }
    labels.push_back(s.point.mechanism +
                     (settings.empty() ? "" : " (" + join(settings, ", ") + ")") + ": " +
                     format_number(exponent, 2));
    longest_label = std::max(longest_label, labels.back().size());
  }

  double min_s = std::numeric_limits<double>::max(), max_s = 0;
  double min_t = std::numeric_limits<double>::max(), max_t = 0;
  for (const Series& s : series) {
    for (const auto& [x, y] : s.xy) {
      min_s = std::min(min_s, x), max_s = std::max(max_s, x);
      min_t = std::min(min_t, y), max_t = std::max(max_t, y);
    }
  }
  if (series.empty()) min_s = max_s = min_t = max_t = 1;
  const LogAxis x_axis = LogAxis::spanning(min_s, max_s), y_axis = LogAxis::spanning(min_t, max_t);
  const auto px = [&](double s) { return kLeft + x_axis.at(s) * kPlotWidth; };
  const auto py = [&](double t) { return kTop + (1 - y_axis.at(t)) * kPlotHeight; };

  const double legend_x = kLeft + kPlotWidth + kLegendGap;
  const double width = std::max(legend_x + 28 + kCharWidth * double(longest_label),
                                kLeft + kCharWidth * double(settings_line.size())) +
                       kRightMargin;
  const double height =
      std::max(kTop + kPlotHeight + kBottom, kTop + kLegendLine * double(series.size() + 2));
  svg::Writer w;
  w.document(width, height, {{"font-family", "sans-serif"}, {"font-size", kFontSize}});
  w.newline();
  w.rect({{"width", "100%"}, {"height", "100%"}, {"fill", "white"}});
  w.newline();
  text(w, kLeft, 22, "title", "start", "heed-bench-attn: median time against source length",
       {{"font-size", 15}});
  text(w, kLeft, 40, "settings", "start", settings_line, {{"fill", "#555"}});

  // Axes, ticks and their labels.
  const svg::Attributes axis_style = {{"stroke", "#333"}, {"stroke-width", 1}};
  const svg::Attributes grid_style = {{"stroke", "#ddd"}, {"stroke-width", 0.75}};
  w.rect(svg::concat({{"class", "frame"},
                      {"x", kLeft},
                      {"y", kTop},
                      {"width", kPlotWidth},
                      {"height", kPlotHeight},
                      {"fill", "none"}},
                     axis_style));
  w.newline();
  const double bottom = kTop + kPlotHeight;
  for_each_tick(x_axis, [&](double value, int k, bool major) {
    const double x = px(value);
    line(w, x, bottom, x, bottom + (major ? 6 : 3), major ? "x-tick" : "x-minor-tick", axis_style);
    if (major) {
      line(w, x, kTop, x, bottom, "x-grid", grid_style);
      text(w, x, bottom + 20, "x-tick-label", "middle", decade_label(k));
    }
  });
  for_each_tick(y_axis, [&](double value, int k, bool major) {
    const double y = py(value);
    line(w, kLeft - (major ? 6 : 3), y, kLeft, y, major ? "y-tick" : "y-minor-tick", axis_style);
    if (major) {
      line(w, kLeft, y, kLeft + kPlotWidth, y, "y-grid", grid_style);
      text(w, kLeft - 9, y + 4, "y-tick-label", "end", decade_label(k));
    }
  });
  text(w, kLeft + kPlotWidth / 2, bottom + 42, "x-label", "middle", "source length S");
  text(w, 0, 0, "y-label", "middle", "median time (ms)",
       {{"transform", w.translate(kLeft - 54, kTop + kPlotHeight / 2) + " rotate(-90)"}});

  // The series and the legend.
  text(w, legend_x, kTop + 4, "legend-title", "start", "mechanism: time exponent in S");
  for (size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    const std::string colour(svg::series_colour(i)), dash = kDashes[(i / 10) % 3];
    svg::Attributes stroke = {{"stroke", colour}, {"stroke-width", 1.75}};
    if (!dash.empty()) stroke.push_back({"stroke-dasharray", dash});
    svg::Points points;
    for (const auto& [length, ms] : s.xy) points.emplace_back(px(length), py(ms));

    w.open("g", {{"class", "series"}});
    w.newline();
    w.polyline(points, svg::concat({{"class", "series"}, {"fill", "none"}}, stroke));
    w.newline();
    for (const auto& [length, ms] : s.xy) {
      w.open("circle",
             {{"class", "marker"}, {"cx", px(length)}, {"cy", py(ms)}, {"r", 3}, {"fill", colour}});
      w.title(s.point.mechanism + " S=" + format_number(length, 0) + ": " + format_number(ms, 4) +
              " ms");
      w.close();
      w.newline();
    }
    w.close();
    w.newline();
    const double ly = kTop + kLegendLine * double(i + 1) + 4;
    line(w, legend_x, ly - 4, legend_x + 22, ly - 4, "legend-swatch", stroke);
    text(w, legend_x + 28, ly, "legend", "start", labels[i]);
  }
  return w.finish();
}

}  // namespace heed::bench_attn
