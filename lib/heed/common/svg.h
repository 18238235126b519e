// heed's one SVG writer (heed-align plot's heatmaps, heed-bench-attn --plot): elements with
// their attributes in the order given, numbers in one compact format, text and attribute values
// XML-escaped (xml_escape, strings.h), so every document is well-formed XML.
//
//   svg::Writer w;
//   w.document(200, 100, {{"font-family", "sans-serif"}});
//   w.rect({{"class", "cell"}, {"x", 10}, {"y", 10}, {"width", 22}, {"height", 22}});
//   w.text({{"x", 40}, {"y", 20}}, "a < b");
//   std::string svg = w.finish();
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace heed::svg {

// An attribute's value: a number (written by the Writer: number()) or text (escaped). Text is
// borrowed: it must outlive the call it is passed to, which a temporary does.
class Value {
 public:
  Value(double number) : number_(number), is_number_(true) {}
  Value(int number) : number_(number), is_number_(true) {}  // so that 0 is not a null pointer
  Value(std::string_view text) : text_(text) {}
  Value(const char* text) : text_(text) {}
  Value(const std::string& text) : text_(text) {}

  bool is_number() const { return is_number_; }
  double number() const { return number_; }
  std::string_view text() const { return text_; }

 private:
  double number_ = 0;
  std::string_view text_;
  bool is_number_ = false;
};

struct Attribute {
  std::string_view name;
  Value value;
};
using Attributes = std::vector<Attribute>;
using Points = std::vector<std::pair<double, double>>;

// first's attributes, then second's: a shared style added to an element's own.
Attributes concat(Attributes first, const Attributes& second);

// The colour of the i-th series of a chart: Tableau 10, repeating after ten.
std::string_view series_colour(size_t i);

class Writer {
 public:
  // The root element: <svg xmlns="http://www.w3.org/2000/svg" width="W" height="H"
  // viewBox="0 0 W H" ...more>, closed by finish().
  void document(double width, double height, const Attributes& more = {});

  // <name attributes/> and its common kinds.
  void empty(std::string_view name, const Attributes& attributes);
  void rect(const Attributes& attributes) { empty("rect", attributes); }
  void line(const Attributes& attributes) { empty("line", attributes); }
  void circle(const Attributes& attributes) { empty("circle", attributes); }
  // <polyline attributes points="x,y x,y …"/>
  void polyline(const Points& points, const Attributes& attributes);

  // <name attributes>content</name>, the content escaped; text and title are the usual ones.
  void element(std::string_view name, const Attributes& attributes, std::string_view content);
  void text(const Attributes& attributes, std::string_view content) {
    element("text", attributes, content);
  }
  void title(std::string_view content) { element("title", {}, content); }

  // <name attributes> … close(): an element holding others (a group, a shape with a title).
  void open(std::string_view name, const Attributes& attributes = {});
  void close();

  // A line break between elements (for readers of the file; no meaning in SVG).
  void newline() { out_ += '\n'; }

  // Closes every open element, the root last, and returns the document (ending in a newline).
  std::string finish();

  // Formatting for composite values: a number as attributes get it (at most two decimals,
  // trailing zeros dropped: "22", "12.5", "0.33", "-0" as "0"; a number that is not finite throws
  // InternalError); "translate(x,y)".
  static std::string number(double value);
  static std::string translate(double x, double y);

 private:
  void start_tag(std::string_view name, const Attributes& attributes);

  std::string out_;
  std::vector<std::string> open_;
};

}  // namespace heed::svg
