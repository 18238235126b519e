#include "heed/train/curves.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>

#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/common/svg.h"
#include "heed/io/line_reader.h"

namespace heed::train {
namespace {

// Geometry, in SVG user units: two columns of two panels, the legend below them.
constexpr double kPanelWidth = 360, kPanelHeight = 210;
constexpr double kPanelLeft = 64, kPanelTop = 34, kPanelRight = 20, kPanelBottom = 46;
constexpr double kTitleHeight = 34, kLegendLine = 18, kFontSize = 12;
constexpr double kCellWidth = kPanelLeft + kPanelWidth + kPanelRight;
constexpr double kCellHeight = kPanelTop + kPanelHeight + kPanelBottom;
constexpr double kCharWidth = 0.62 * kFontSize;  // generous: no font metrics at hand
constexpr int kTicks = 5;                        // about this many ticks an axis

// One panel: its title, the class of its markers (none: a line alone) and its value of a point.
struct Panel {
  const char* title;
  const char* marker_class;
  double CurvePoint::*value;
};
const Panel kPanels[] = {
    {"training loss", nullptr, &CurvePoint::loss},
    {"validation perplexity", "valid-ppl", &CurvePoint::valid_ppl},
    {"validation BLEU", "valid-bleu", &CurvePoint::valid_bleu},
    {"learning rate", nullptr, &CurvePoint::lr},
};

// A linear axis from low to high with ticks every step (1, 2 or 5 times a power of ten).
struct Axis {
  double low = 0, high = 1, step = 1;
  static Axis spanning(double min, double max) {
    if (!(max > min)) {
      const double pad = min == 0 ? 1 : std::abs(min) * 0.1;
      min -= pad;
      max += pad;
    }
    const double raw = (max - min) / kTicks;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    double step = power;
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
      step = m * power;
      if (step >= raw) break;
    }
    return {std::floor(min / step) * step, std::ceil(max / step) * step, step};
  }
  double at(double value) const { return (value - low) / (high - low); }  // 0 … 1
};

// A tick label: as few digits as the step needs ("0.0005", "1200", "2e-05").
std::string tick_label(double value, double step) {
  if (std::abs(value) < step * 1e-6) value = 0;
  char text[32];
  if (step < 1e-3 || std::abs(value) >= 1e6) {
    std::snprintf(text, sizeof text, "%.3g", value);
  } else {
    const int decimals = step >= 1 ? 0 : int(std::ceil(-std::log10(step) - 1e-9));
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
  }
  return text;
}

std::string value_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

void text(svg::Writer& w, double x, double y, const char* cls, const char* anchor,
          const std::string& content, const svg::Attributes& more = {}) {
  w.text(svg::concat({{"class", cls}, {"x", x}, {"y", y}, {"text-anchor", anchor}}, more), content);
  w.newline();
}

void line(svg::Writer& w, double x1, double y1, double x2, double y2, const char* cls,
          const char* colour) {
  w.line({{"class", cls}, {"x1", x1}, {"y1", y1}, {"x2", x2}, {"y2", y2}, {"stroke", colour}});
  w.newline();
}

// The points of a run that have the panel's value, in order of updates.
std::vector<std::pair<double, double>> series(const CurveRun& run, const Panel& panel) {
  std::vector<std::pair<double, double>> xy;
  for (const CurvePoint& p : run.points) {
    const double v = p.*panel.value;
    if (std::isfinite(v)) xy.emplace_back(double(p.step), v);
  }
  return xy;
}

void draw_panel(svg::Writer& w, const Panel& panel, const std::vector<CurveRun>& runs,
                const Axis& x_axis, double left, double top) {
  const double x0 = left + kPanelLeft, y0 = top + kPanelTop;
  const double bottom = y0 + kPanelHeight;
  text(w, x0, y0 - 10, "panel-title", "start", panel.title, {{"font-size", 13}});
  w.rect({{"class", "frame"},
          {"x", x0},
          {"y", y0},
          {"width", kPanelWidth},
          {"height", kPanelHeight},
          {"fill", "none"},
          {"stroke", "#333"}});
  w.newline();
  double min = HUGE_VAL, max = -HUGE_VAL;
  for (const CurveRun& run : runs) {
    for (const auto& [x, y] : series(run, panel)) min = std::min(min, y), max = std::max(max, y);
  }
  const auto px = [&](double x) { return x0 + x_axis.at(x) * kPanelWidth; };
  for (double x = x_axis.low; x <= x_axis.high + x_axis.step / 2; x += x_axis.step) {
    line(w, px(x), bottom, px(x), bottom + 5, "x-tick", "#333");
    text(w, px(x), bottom + 18, "x-tick-label", "middle", tick_label(x, x_axis.step));
  }
  text(w, x0 + kPanelWidth / 2, bottom + 36, "x-label", "middle", "updates");
  if (min > max) {
    text(w, x0 + kPanelWidth / 2, y0 + kPanelHeight / 2, "no-data", "middle", "no data yet",
         {{"fill", "#777"}});
    return;
  }
  const Axis y_axis = Axis::spanning(min, max);
  const auto py = [&](double y) { return bottom - y_axis.at(y) * kPanelHeight; };
  for (double y = y_axis.low; y <= y_axis.high + y_axis.step / 2; y += y_axis.step) {
    line(w, x0 - 5, py(y), x0, py(y), "y-tick", "#333");
    line(w, x0, py(y), x0 + kPanelWidth, py(y), "y-grid", "#e5e5e5");
    text(w, x0 - 8, py(y) + 4, "y-tick-label", "end", tick_label(y, y_axis.step));
  }
  for (size_t r = 0; r < runs.size(); ++r) {
    const std::vector<std::pair<double, double>> xy = series(runs[r], panel);
    if (xy.empty()) continue;
    const std::string colour(svg::series_colour(r));
    svg::Points points;
    for (const auto& [x, y] : xy) points.emplace_back(px(x), py(y));
    w.open("g", {{"class", "run"}});
    w.polyline(points,
               {{"class", "series"}, {"fill", "none"}, {"stroke", colour}, {"stroke-width", 1.5}});
    w.newline();
    for (size_t k = 0; panel.marker_class && k < xy.size(); ++k) {
      w.open("circle", {{"class", panel.marker_class},
                        {"cx", points[k].first},
                        {"cy", points[k].second},
                        {"r", 2.5},
                        {"fill", colour}});
      w.title(runs[r].name + ", update " + tick_label(xy[k].first, 1) + ": " +
              value_text(xy[k].second));
      w.close();
      w.newline();
    }
    w.close();
    w.newline();
  }
}

// A number of the metrics file: empty is none (NaN).
double field_number(const std::string& text, const std::string& column, const std::string& file,
                    long long line) {
  if (text.empty()) return std::nan("");
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end) {
    throw DataError(at_line(file, line, column + " '" + text + "' is not a number"));
  }
  return value;
}

}  // namespace

CurvePoint curve_point(const MetricsRow& row) {
  CurvePoint p;
  p.step = row.step;
  p.loss = row.loss;
  p.lr = row.lr;
  p.valid_ppl = row.valid_ppl;
  p.valid_bleu = row.valid_bleu;
  return p;
}

std::string learning_curves_svg(const std::vector<CurveRun>& runs) {
  int64_t last = 0;
  size_t longest_name = 0;
  for (const CurveRun& run : runs) {
    for (const CurvePoint& p : run.points) last = std::max(last, p.step);
    longest_name = std::max(longest_name, run.name.size());
  }
  const Axis x_axis = Axis::spanning(0, double(std::max<int64_t>(last, 1)));
  const double grid_height = 2 * kCellHeight;
  const double width = std::max(2 * kCellWidth, 2 * kPanelLeft + kCharWidth * double(longest_name));
  const double height = kTitleHeight + grid_height + kLegendLine * double(runs.size()) + 12;
  svg::Writer w;
  w.document(width, height, {{"font-family", "sans-serif"}, {"font-size", kFontSize}});
  w.newline();
  w.rect({{"width", "100%"}, {"height", "100%"}, {"fill", "white"}});
  w.newline();
  text(w, kPanelLeft, 24, "title", "start", "heed-train: learning curves", {{"font-size", 15}});
  for (size_t i = 0; i < std::size(kPanels); ++i) {
    w.open("g", {{"class", "panel"}});
    w.newline();
    draw_panel(w, kPanels[i], runs, x_axis, double(i % 2) * kCellWidth,
               kTitleHeight + double(i / 2) * kCellHeight);
    w.close();
    w.newline();
  }
  for (size_t r = 0; r < runs.size(); ++r) {
    const double y = kTitleHeight + grid_height + kLegendLine * double(r) + 4;
    const std::string colour(svg::series_colour(r));
    w.line({{"class", "legend-swatch"},
            {"x1", kPanelLeft},
            {"y1", y - 4},
            {"x2", kPanelLeft + 22},
            {"y2", y - 4},
            {"stroke", colour},
            {"stroke-width", 2}});
    text(w, kPanelLeft + 28, y, "legend", "start", runs[r].name);
  }
  return w.finish();
}

std::vector<CurvePoint> read_metrics_curves(const std::string& path) {
  io::LineReader reader(path);
  const std::string name = reader.display_name();
  std::string line;
  std::map<std::string, size_t> column;
  std::vector<CurvePoint> points;
  while (reader.next(line)) {
    const long long number = reader.line_number();
    const std::vector<std::string> fields = split(line, "\t");
    if (!fields.empty() && fields[0] == "step") {  // the header (again after an append)
      column.clear();
      for (size_t i = 0; i < fields.size(); ++i) column[fields[i]] = i;
      for (const char* needed : {"step", "loss", "lr", "val_ppl", "val_bleu"}) {
        if (!column.count(needed)) {
          throw DataError(at_line(name, number,
                                  std::string("the header has no column '") + needed +
                                      "' (is this a heed-train --metrics-file?)"));
        }
      }
      continue;
    }
    if (line.empty()) continue;
    if (column.empty()) {
      throw DataError(at_line(name, number,
                              "a row before the header 'step<TAB>epoch<TAB>loss...' (is this a "
                              "heed-train --metrics-file?)"));
    }
    if (fields.size() < column.size()) {
      throw DataError(at_line(name, number,
                              std::to_string(fields.size()) + " fields where the header has " +
                                  std::to_string(column.size())));
    }
    const auto value = [&](const char* key) {
      return field_number(fields[column.at(key)], key, name, number);
    };
    const std::optional<int64_t> step = parse_int64(fields[column.at("step")]);
    if (!step || *step < 0) {
      throw DataError(
          at_line(name, number, "step '" + fields[column.at("step")] + "' is not an update count"));
    }
    CurvePoint p;
    p.step = *step;
    p.loss = value("loss");
    p.lr = value("lr");
    p.valid_ppl = value("val_ppl");
    p.valid_bleu = value("val_bleu");
    points.push_back(p);
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const CurvePoint& a, const CurvePoint& b) { return a.step < b.step; });
  return points;
}

}  // namespace heed::train
