// heed-align plot: draws the attention of sentence pairs (the JSON lines of --soft) as heatmaps,
// with predicted and gold links marked: one SVG, or an HTML page of several.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "align/subcommand.h"
#include "heed/align/heatmap.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"
#include "heed/text/tokenizer.h"

namespace {

using namespace heed;
// An HTML page of more pairs than this is too large to be read; select some with --pairs.
constexpr long long kMaxPagePairs = 1000;

// --pairs "1,3-5": inclusive ranges of pair ids.
using PairRanges = std::vector<std::pair<long long, long long>>;

PairRanges parse_pair_ranges(const std::string& text) {
  const auto bad = [&text](const std::string& why) {
    return ConfigError("--pairs '" + text + "': " + why +
                       " (expected zero-based pair ids and ranges such as 1,3-5)");
  };
  const auto parse_id = [&](const std::string& s) {
    if (s.empty() || s.size() > 15 || s.find_first_not_of("0123456789") != std::string::npos) {
      throw bad("'" + s + "' is not a pair id");
    }
    return std::stoll(s);
  };
  PairRanges ranges;
  for (const std::string& item : split(text, ",")) {
    const size_t dash = item.find('-');
    const long long first = parse_id(item.substr(0, dash));
    const long long last = dash == std::string::npos ? first : parse_id(item.substr(dash + 1));
    if (last < first) throw bad("the range '" + item + "' runs backwards");
    ranges.emplace_back(first, last);
  }
  return ranges;
}

struct PlotConfig {
  std::string soft;
  std::string links;
  std::string gold;
  bool one_based = false;
  std::string pairs;  // empty: all
  std::string format = "auto";
  std::string output = "-";
};

// A file read line by line in step with --soft (line k belongs to the pair on line k).
class CompanionFile {
 public:
  explicit CompanionFile(const std::string& path) {
    if (!path.empty()) reader_ = std::make_unique<io::LineReader>(path);
  }
  bool given() const { return reader_ != nullptr; }
  // The next line; false at the end of the file.
  bool next() { return !ended_ && !(ended_ = !reader_->next(line_)); }
  const std::string& line() const { return line_; }
  long long line_number() const { return reader_->line_number(); }
  std::string name() const { return reader_->display_name(); }

 private:
  std::unique_ptr<io::LineReader> reader_;
  std::string line_;
  bool ended_ = false;
};

[[noreturn]] void refuse_line_counts(const std::string& file, long long lines,
                                     const std::string& soft, long long soft_lines) {
  throw DataError("'" + file + "' has " + std::to_string(lines) + " lines but '" + soft + "' has " +
                  std::to_string(soft_lines) + " (line k belongs to the pair on line k)");
}

// What read() keeps of the input.
struct Selection {
  std::vector<align::SoftAlignment> pairs;  // the first kMaxPagePairs selected
  std::vector<align::HeatmapMarks> marks;   // marks[k] belongs to pairs[k]
  std::set<long long> found;                // the ids selected
  long long selected = 0;                   // how many lines were selected
  std::string soft_name;
};

class Plot : public align_tool::Subcommand {
 public:
  std::string name() const override { return "plot"; }
  std::string synopsis() const override {
    return "plot --soft FILE.jsonl [--links A] [--gold G [--one-based]] [--pairs 1,3-5] [-o "
           "OUT.svg|OUT.html]";
  }
  std::string description() const override {
    return "Draws the attention written by heed-align --soft as heatmaps: source tokens as "
           "columns, target tokens (and the </s> step) as rows, each cell shaded by its weight "
           "with the weight in a tooltip; predicted links (--links, Pharaoh) as dots, gold links "
           "(--gold, talp) as solid (sure) and dashed (possible) squares. Line k of --links and "
           "--gold belongs to the pair on line k of --soft. One pair makes a self-contained SVG, "
           "several an HTML page; both are well-formed XML.";
  }

  void add_options(cli::CommandLine& cl) override {
    // Empty means all pairs: --print-config writes `pairs = ` and must replay.
    const auto pairs = [](const std::string& list) {
      if (!list.empty()) parse_pair_ranges(list);
    };
    // clang-format off
    cl.group("Plot")
        ("soft",      cli::text(&cfg_.soft),
                      "the attention: JSON lines as heed-align --soft writes them")
        ("links",     cli::text(&cfg_.links),
                      "predicted links to mark: zero-based Pharaoh 'i-j' lines, one per --soft "
                      "line")
        ("gold",      cli::text(&cfg_.gold),
                      "gold links to mark: talp lines, 'i-j' sure and 'ipj' possible, one per "
                      "--soft line")
        ("one-based", cli::flag(&cfg_.one_based),
                      "the --gold links count words from 1 (as the Hansards gold sets do)")
        ("pairs",     cli::checked(&cfg_.pairs, pairs),
                      "the pairs to draw, by their zero-based JSON \"id\": 1,3-5 (default all)")
        ("format",    cli::choice(&cfg_.format, {"auto", "svg", "html"}),
                      "svg (one pair) or html; auto: by the --output extension, else svg for one "
                      "pair")
        ("output,o",  cli::text_with_default(&cfg_.output),
                      "output file, .svg or .html ('-' = stdout)");
    // clang-format on
  }

  int run(const cli::CommandLine&) override {
    if (cfg_.soft.empty()) throw ConfigError("plot needs --soft FILE (the attention to draw)");
    if (cfg_.one_based && cfg_.gold.empty()) {
      throw ConfigError("--one-based applies to --gold, which is not given");
    }
    const PairRanges ranges = cfg_.pairs.empty() ? PairRanges{} : parse_pair_ranges(cfg_.pairs);
    std::string format = cfg_.format;
    if (format == "auto") {
      if (ends_with(cfg_.output, ".svg")) format = "svg";
      if (ends_with(cfg_.output, ".html") || ends_with(cfg_.output, ".xhtml")) format = "html";
    }
    if (format == "svg" && !ranges.empty() &&
        (ranges.size() > 1 || ranges[0].first != ranges[0].second)) {
      throw ConfigError("an SVG shows one pair, but --pairs '" + cfg_.pairs +
                        "' selects several (write an .html page for them)");
    }
    io::check_writable(cfg_.output);

    const Selection chosen = read(ranges);
    const std::string& soft_name = chosen.soft_name;
    const long long selected = chosen.selected;
    for (const auto& [first, last] : ranges) {
      for (long long id = first; id <= last; ++id) {
        if (!chosen.found.count(id)) {
          throw ConfigError("--pairs: '" + soft_name + "' has no pair with id " +
                            std::to_string(id));
        }
      }
    }
    if (selected == 0) throw DataError("'" + soft_name + "' has no pairs to draw");
    if (format == "auto") format = selected == 1 ? "svg" : "html";
    if (format == "svg" && selected != 1) {
      throw ConfigError("an SVG shows one pair, but '" + soft_name + "' has " +
                        std::to_string(selected) +
                        " (choose one with --pairs, or write an .html page)");
    }
    if (selected > kMaxPagePairs) {
      throw ConfigError("an HTML page takes at most " + std::to_string(kMaxPagePairs) +
                        " pairs, but " + std::to_string(selected) +
                        " are selected (choose some with --pairs)");
    }

    // The sentences above the heatmaps read as text; the axes keep the model's tokens.
    const text::Tokenizer detokenizer;
    io::LineWriter out(cfg_.output);
    out.write(format == "svg"
                  ? align::heatmap_svg(chosen.pairs[0], chosen.marks[0])
                  : align::heatmap_html(chosen.pairs, chosen.marks, "Attention: " + soft_name,
                                        [&detokenizer](const std::vector<std::string>& tokens) {
                                          return detokenizer.detokenize(tokens);
                                        }));
    out.commit();
    spdlog::info("[plot] drew {} pair(s) to {}", selected, cfg_.output);
    return 0;
  }

 private:
  // The pairs --pairs selects (all when ranges is empty), with their marks. Every line of every
  // input is read and checked, selected or not.
  Selection read(const PairRanges& ranges) const {
    io::LineReader soft(cfg_.soft);
    CompanionFile links(cfg_.links), gold(cfg_.gold);
    Selection chosen;
    std::string line;
    while (soft.next(line)) {
      align::SoftAlignment pair =
          align::parse_json_line(line, soft.display_name(), soft.line_number());
      align::HeatmapMarks pair_marks;
      if (links.given()) {
        if (!links.next()) break;
        pair_marks.links = align::parse_pharaoh(links.line(), links.name(), links.line_number());
        align::check_links_fit(*pair_marks.links, pair, links.name(), links.line_number());
      }
      if (gold.given()) {
        if (!gold.next()) break;
        pair_marks.gold =
            align::parse_talp(gold.line(), gold.name(), gold.line_number(), cfg_.one_based);
        align::check_links_fit(pair_marks.gold->possible, pair, gold.name(), gold.line_number());
      }
      const bool wanted =
          ranges.empty() || std::any_of(ranges.begin(), ranges.end(), [&](const auto& r) {
            return pair.id >= r.first && pair.id <= r.second;
          });
      if (!wanted) continue;
      chosen.found.insert(pair.id);
      if (++chosen.selected > kMaxPagePairs) continue;  // refused once the input is checked
      chosen.pairs.push_back(std::move(pair));
      chosen.marks.push_back(std::move(pair_marks));
    }
    // A companion file that ended early stopped the loop. Compare whole line counts.
    while (soft.next(line)) {
    }
    for (CompanionFile* file : {&links, &gold}) {
      if (!file->given()) continue;
      long long file_lines = file->line_number();
      while (file->next()) file_lines = file->line_number();
      if (file_lines != soft.line_number()) {
        refuse_line_counts(file->name(), file_lines, soft.display_name(), soft.line_number());
      }
    }

    chosen.soft_name = soft.display_name();
    return chosen;
  }

  PlotConfig cfg_;
};

}  // namespace

namespace heed::align_tool {
std::unique_ptr<Subcommand> make_plot() {
  return std::make_unique<Plot>();
}
}  // namespace heed::align_tool
