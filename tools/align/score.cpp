// heed-align score: alignment error rate, precision and recall of test alignments against gold
// sure and possible links (lib/heed/align/aer.h), micro-averaged over the test set.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "align/subcommand.h"
#include "heed/align/aer.h"
#include "heed/align/alignment.h"
#include "heed/common/error.h"
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
    return "score --gold GOLD --test ALIGNMENTS [--gold-format F] [--one-based] [-o OUT]";
  }
  std::string description() const override {
    return "Scores alignments (one line of zero-based Pharaoh links per sentence pair) against "
           "gold sure and possible links: AER, precision and recall, micro-averaged. The gold "
           "is talp ('i-j' sure, 'ipj' possible, one line per sentence) or NAACL 2003 "
           "('sentence i j S|P' per link, 1-based). Writes a header line and one row of "
           "tab-separated values: aer, precision and recall in percent, then the numbers of "
           "predicted, sure and possible (sure included) links and of sentences.";
  }

  void add_options(cli::CommandLine& cl) override {
    // clang-format off
    cl.group("Scoring")
        ("gold",           cli::required_text(&gold_), "gold alignments")
        ("test",           cli::required_text(&test_),
                           "alignments to score, zero-based Pharaoh ('-' = stdin)")
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
    if (gold_ == "-" && test_ == "-") throw ConfigError("only one of --gold and --test can be '-'");
    io::check_writable(output_);

    std::vector<std::string> test_lines;
    io::LineReader test(test_);
    for (std::string line; test.next(line);) test_lines.push_back(line);
    const long long sentences = static_cast<long long>(test_lines.size());
    // AER of nothing against nothing is undefined, not 0.00 (heed-score refuses empty input too).
    if (sentences == 0) throw DataError("'" + test.display_name() + "' is empty: nothing to score");
    if (cl.given("sentences") && sentences_ != sentences) {
      throw DataError("'" + test.display_name() + "' has " + std::to_string(sentences) +
                      " lines but --sentences is " + std::to_string(sentences_));
    }

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
                      test.display_name() + "' has " + std::to_string(sentences) +
                      ": the alignments are not of the same sentence pairs");
    }

    align::AerCounts total;
    for (size_t k = 0; k < test_lines.size(); ++k) {
      const align::Alignment links =
          align::parse_pharaoh(test_lines[k], test.display_name(), static_cast<long long>(k) + 1);
      total += align::aer_counts(links, transpose_gold_ ? align::transpose(gold[k]) : gold[k]);
    }

    io::LineWriter out(output_);
    out.write_line("aer\tprecision\trecall\tpredicted\tsure\tpossible\tsentences");
    out.write_line(percent(total.aer()) + "\t" + percent(total.precision()) + "\t" +
                   percent(total.recall()) + "\t" + std::to_string(total.predicted) + "\t" +
                   std::to_string(total.sure) + "\t" + std::to_string(total.possible) + "\t" +
                   std::to_string(sentences));
    out.commit();
    return 0;
  }

 private:
  std::string gold_, test_, output_ = "-";
  std::string gold_format_ = "auto";
  bool one_based_ = false;
  bool transpose_gold_ = false;
  long long sentences_ = 0;
};

}  // namespace

namespace heed::align_tool {
std::unique_ptr<Subcommand> make_score() {
  return std::make_unique<Score>();
}
}  // namespace heed::align_tool
