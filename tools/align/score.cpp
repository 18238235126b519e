// heed-align score: alignment error rate, precision and recall of test alignments against gold
// sure and possible links (lib/heed/align/aer.h), micro-averaged over the test set; with
// --system, aligners (each run several times: seeds) compared by their AER, the difference to
// the first with its interval over runs and sentences (heed/eval/multi_run.h, as heed-score
// compares translation systems).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "align/subcommand.h"
#include "common/comparison.h"
#include "common/table.h"
#include "heed/align/aer.h"
#include "heed/align/alignment.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/eval/multi_run.h"
#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"

namespace {

using namespace heed;
std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", 100.0 * fraction);
  return text;
}

class Score final : public align_tool::Subcommand {
 public:
  std::string name() const override { return "score"; }
  std::string synopsis() const override {
    return "score --gold GOLD --test ALIGNMENTS [--gold-format F] [--one-based] [-o OUT]\n"
           "       heed-align score --gold GOLD --system NAME=RUN[,RUN...] [--system ...] "
           "[--bootstrap N] [options]";
  }
  std::string description() const override {
    return "Scores alignments (one line of zero-based Pharaoh links per sentence pair) against "
           "gold sure and possible links: AER, precision and recall, micro-averaged. The gold "
           "is talp ('i-j' sure, 'ipj' possible, one line per sentence) or NAACL 2003 "
           "('sentence i j S|P' per link, 1-based). Writes a header line and one row of "
           "tab-separated values: aer, precision and recall in percent, then the numbers of "
           "predicted, sure and possible (sure included) links and of sentences. With --system "
           "(instead of --test), compares aligners by AER: one TSV row per system, the first "
           "the baseline, the others with their difference to it (negative: fewer errors), its "
           "95% interval from a hierarchical bootstrap over the systems' runs and the "
           "sentences, Holm-adjusted p-values, Welch's t-test over the runs alone, and "
           "equivalence (TOST, Holm-adjusted) within a margin.";
  }

  void add_options(cli::CommandLine& cl) override {
    const auto check_system = [](const std::string& spec) {
      std::vector<std::string> files;
      (void)cli::parse_system(spec, files);
    };
    // clang-format off
    cl.group("Scoring")
        ("gold",           cli::required_text(&gold_), "gold alignments")
        ("test",           cli::text(&test_),
                           "alignments to score, zero-based Pharaoh ('-' = stdin)")
        ("system",         cli::checked_texts(&system_specs_, check_system),
                           "NAME=RUN[,RUN...]: an aligner and its runs' alignment files (one per "
                           "seed); repeat for each, the first is the baseline; instead of --test")
        ("bootstrap",      cli::number(&bootstrap_, cli::between(1, 1000000)),
                           "--system: resamples of the hierarchical bootstrap (at most 1,000,000)")
        ("equivalence-margin", cli::number(&margin_, cli::above(0)),
                           "--system: equivalence (TOST, Holm-adjusted) within this many AER "
                           "points of the baseline")
        ("gold-format",    cli::choice(&gold_format_, {"auto", "talp", "naacl"}),
                           "auto (from the first line), talp or naacl")
        ("one-based",      cli::flag(&one_based_),
                           "talp gold indices start at 1 (as in the published gold sets); NAACL "
                           "always does")
        ("sentences",      cli::number_without_default(&sentences_, cli::at_least(1)),
                           "the number of sentences (default: the test file's lines); NAACL gold "
                           "omits sentences without links")
        ("transpose-gold", cli::flag(&transpose_gold_),
                           "swap the gold's source and target (test alignments of the other "
                           "translation direction)")
        ("output,o",       cli::text_with_default(&output_), "output file ('-' = stdout)");
    // clang-format on
  }

  int run(const cli::CommandLine& cl) override {
    const bool compare = !system_specs_.empty();
    if (compare && cl.given("test")) {
      throw ConfigError("--test and --system cannot be combined: give every aligner as --system");
    }
    if (!compare && !cl.given("test")) {
      throw ConfigError("no alignments: give --test FILE, or --system NAME=RUN[,RUN...]");
    }
    for (const char* option : {"bootstrap", "equivalence-margin"}) {
      if (!compare && cl.given(option)) {
        throw ConfigError("--" + std::string(option) + " applies to --system comparisons");
      }
    }
    std::vector<std::string> files;
    const std::vector<cli::NamedSystem> systems =
        compare ? cli::parse_systems(system_specs_, files) : std::vector<cli::NamedSystem>{};
    if (!compare) files.push_back(test_);
    if (int(std::count(files.begin(), files.end(), std::string("-"))) + (gold_ == "-") > 1) {
      throw ConfigError(std::string("only one of --gold and the ") +
                        (compare ? "--system files" : "--test file") + " can be '-'");
    }
    io::check_writable(output_);
    seed_ = cl.common().seed;
    threads_ = cl.threads();

    // Every file's lines, and the gold of as many sentences as the first has.
    std::vector<std::vector<std::string>> lines(files.size());
    std::vector<std::string> names(files.size());
    for (size_t f = 0; f < files.size(); ++f) {
      io::LineReader test(files[f]);
      names[f] = test.display_name();
      for (std::string line; test.next(line);) lines[f].push_back(line);
      if (lines[f].empty()) throw DataError("'" + names[f] + "' is empty: nothing to score");
      if (lines[f].size() != lines[0].size()) {
        throw DataError("'" + names[f] + "' has " + std::to_string(lines[f].size()) +
                        " lines but '" + names[0] + "' has " + std::to_string(lines[0].size()) +
                        ": the alignments are not of the same sentence pairs");
      }
    }
    // AER of nothing against nothing is undefined, not 0.00 (heed-score refuses empty input too).
    const long long sentences = static_cast<long long>(lines[0].size());
    if (cl.given("sentences") && sentences_ != sentences) {
      throw DataError("'" + names[0] + "' has " + std::to_string(sentences) +
                      " lines but --sentences is " + std::to_string(sentences_));
    }
    const std::vector<align::GoldAlignment> gold = read_gold(sentences, names[0]);

    // Per file, the counts of each sentence: the comparison resamples them.
    std::vector<std::vector<eval::SegmentStats>> stats(files.size());
    align::AerCounts total;
    for (size_t f = 0; f < files.size(); ++f) {
      for (size_t k = 0; k < lines[f].size(); ++k) {
        const align::Alignment links =
            align::parse_pharaoh(lines[f][k], names[f], static_cast<long long>(k) + 1);
        const align::AerCounts c =
            align::aer_counts(links, transpose_gold_ ? align::transpose(gold[k]) : gold[k]);
        if (!compare) total += c;
        stats[f].push_back({double(c.predicted), double(c.sure), double(c.possible),
                            double(c.hit_sure), double(c.hit_possible)});
      }
    }

    io::LineWriter out(output_);
    if (compare) {
      write_comparison(out, systems, stats);
    } else {
      out.write_line("aer\tprecision\trecall\tpredicted\tsure\tpossible\tsentences");
      out.write_line(percent(total.aer()) + "\t" + percent(total.precision()) + "\t" +
                     percent(total.recall()) + "\t" + std::to_string(total.predicted) + "\t" +
                     std::to_string(total.sure) + "\t" + std::to_string(total.possible) + "\t" +
                     std::to_string(sentences));
    }
    out.commit();
    return 0;
  }

 private:
  std::vector<align::GoldAlignment> read_gold(long long sentences, const std::string& test_name) {
    const std::string gold_name = gold_ == "-" ? "<stdin>" : gold_;
    const std::string gold_text = io::read_whole_file(gold_);
    const std::string_view text = io::without_bom(gold_text);
    const bool naacl =
        gold_format_ == "naacl" ||
        (gold_format_ == "auto" && align::detect_gold_format(text) == align::GoldFormat::kNaacl);
    std::vector<align::GoldAlignment> gold =
        naacl ? align::parse_naacl(text, gold_name, sentences)
              : align::parse_talp_lines(text, gold_name, one_based_);
    if (static_cast<long long>(gold.size()) != sentences) {
      throw DataError("'" + gold_name + "' has " + std::to_string(gold.size()) + " lines but '" +
                      test_name + "' has " + std::to_string(sentences) +
                      ": the alignments are not of the same sentence pairs");
    }
    return gold;
  }

  void write_comparison(io::LineWriter& out, const std::vector<cli::NamedSystem>& systems,
                        const std::vector<std::vector<eval::SegmentStats>>& stats) const {
    std::vector<eval::SystemRuns> runs;
    for (const auto& system : systems) {
      if (system.runs.size() == 1) {
        spdlog::warn("--system {}: one run, so its comparison covers the sentences, not seeds",
                     system.name);
      }
      eval::SystemRuns& r = runs.emplace_back();
      for (size_t file : system.runs) r.push_back(stats[file]);
    }
    const auto aer = [](const eval::SegmentStats& v) {
      const align::AerCounts c{static_cast<long long>(v[0]), static_cast<long long>(v[1]),
                               static_cast<long long>(v[2]), static_cast<long long>(v[3]),
                               static_cast<long long>(v[4])};
      return 100.0 * c.aer();
    };
    const std::vector<eval::SystemComparison> result =
        eval::compare_runs(runs, aer, {bootstrap_, seed_, margin_, threads_});
    const std::string margin = cli::format_number(margin_, 2);
    out.write_line(join(cli::comparison_header(margin, false), "\t"));
    for (size_t s = 0; s < result.size(); ++s) {
      out.write_line(
          join(cli::comparison_row(systems[s].name, "AER", result[s], s == 0, 2, false), "\t"));
    }
    for (const auto& line :
         cli::comparison_method(bootstrap_, seed_, systems[0].name, result.size() - 1, margin)) {
      out.write_line(line);
    }
    out.write_line(
        "# AER in percent, lower is better: a negative difference is fewer errors "
        "than the baseline");
  }

  std::string gold_, test_, output_ = "-";
  std::string gold_format_ = "auto";
  bool one_based_ = false;
  bool transpose_gold_ = false;
  long long sentences_ = 0;
  std::vector<std::string> system_specs_;
  int bootstrap_ = 1000;
  double margin_ = 1.0;
  std::uint64_t seed_ = 12345;
  int threads_ = 1;  // the resamples' (the figures are the same for any number)
};

}  // namespace

namespace heed::align_tool {
std::unique_ptr<Subcommand> make_score() {
  return std::make_unique<Score>();
}
}  // namespace heed::align_tool
