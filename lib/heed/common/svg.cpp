#include "heed/common/svg.h"

#include <cmath>
#include <cstdio>
#include <iterator>

#include "heed/common/error.h"
#include "heed/common/strings.h"

namespace heed::svg {

Attributes concat(Attributes first, const Attributes& second) {
  first.insert(first.end(), second.begin(), second.end());
  return first;
}

std::string_view series_colour(size_t i) {
  static constexpr std::string_view kTableau10[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                                    "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
                                                    "#9c755f", "#bab0ac"};
  return kTableau10[i % std::size(kTableau10)];
}

std::string Writer::number(double value) {
  if (!std::isfinite(value)) throw InternalError("svg: a coordinate or size is not finite");
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", value);
  std::string s = text;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string Writer::translate(double x, double y) {
  return "translate(" + number(x) + "," + number(y) + ")";
}

void Writer::start_tag(std::string_view name, const Attributes& attributes) {
  out_ += '<';
  out_ += name;
  for (const Attribute& a : attributes) {
    out_ += ' ';
    out_ += a.name;
    out_ += "=\"";
    out_ += a.value.is_number() ? number(a.value.number()) : xml_escape(a.value.text());
    out_ += '"';
  }
}

void Writer::document(double width, double height, const Attributes& more) {
  const std::string view_box = "0 0 " + number(width) + " " + number(height);
  Attributes attributes = {{"xmlns", "http://www.w3.org/2000/svg"},
                           {"width", width},
                           {"height", height},
                           {"viewBox", view_box}};
  attributes.insert(attributes.end(), more.begin(), more.end());
  open("svg", attributes);
}

void Writer::empty(std::string_view name, const Attributes& attributes) {
  start_tag(name, attributes);
  out_ += "/>";
}

void Writer::polyline(const Points& points, const Attributes& attributes) {
  std::string list;
  for (const auto& [x, y] : points) list += (list.empty() ? "" : " ") + number(x) + "," + number(y);
  Attributes all = attributes;
  all.push_back({"points", list});
  empty("polyline", all);
}

void Writer::element(std::string_view name, const Attributes& attributes,
                     std::string_view content) {
  start_tag(name, attributes);
  out_ += '>';
  out_ += xml_escape(content);
  out_ += "</";
  out_ += name;
  out_ += '>';
}

void Writer::open(std::string_view name, const Attributes& attributes) {
  start_tag(name, attributes);
  out_ += '>';
  open_.emplace_back(name);
}

void Writer::close() {
  if (open_.empty()) throw InternalError("svg: close() without an open element");
  out_ += "</" + open_.back() + ">";
  open_.pop_back();
}

std::string Writer::finish() {
  while (!open_.empty()) close();
  out_ += '\n';
  return std::move(out_);
}

}  // namespace heed::svg
