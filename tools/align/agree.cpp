// heed-align agree: word alignments from the soft attention of the two translation directions,
// combined cell by cell (lib/heed/align/agreement.h).
#include <memory>
#include <string>

#include "align/line_pairs.h"
#include "align/subcommand.h"
#include "heed/align/agreement.h"
#include "heed/align/alignment.h"
#include "heed/align/soft_alignment.h"
#include "heed/common/error.h"
#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"

namespace {

using namespace heed;
class Agree final : public align_tool::Subcommand {
 public:
  std::string name() const override { return "agree"; }
  std::string synopsis() const override {
    return "agree FWD.jsonl REV.jsonl [--combine mean|geometric] [--threshold P] [-o OUT]";
  }
  std::string description() const override {
    return "Links the word pairs that both translation directions attend to: FWD.jsonl and "
           "REV.jsonl are the --soft attention of a source-to-target and a target-to-source "
           "model on the same sentence pairs. Each becomes a word-level matrix (a target "
           "word's rows averaged over its subwords, a source word's columns summed), the two "
           "are combined cell by cell (their mean, or the geometric mean) and every pair at or "
           "above the threshold is linked. Writes zero-based Pharaoh links, source-target as "
           "FWD's model reads them.";
  }

  void add_options(cli::CommandLine& cl) override {
    // clang-format off
    cl.group("Agreement")
        ("forward",   cli::text(&forward_), "FWD.jsonl: --soft of the source-to-target model")
        ("reverse",   cli::text(&reverse_), "REV.jsonl: --soft of the target-to-source model")
        ("combine",   cli::choice(&options_.combine, "mean", align::parse_agreement_combine),
                      "mean or geometric: how the two weights of a word pair combine")
        ("threshold", cli::number(&options_.threshold, cli::Bounds{0, 1, true, false}),
                      "the least combined weight that makes a link, in (0, 1]")
        ("output,o",  cli::text_with_default(&output_), "output file ('-' = stdout)");
    // clang-format on
    cl.positional("forward", 1);
    cl.positional("reverse", 1);
  }

  int run(const cli::CommandLine&) override {
    if (forward_.empty() || reverse_.empty()) {
      throw ConfigError("agree needs two attention files, FWD.jsonl and REV.jsonl");
    }
    if (forward_ == "-" && reverse_ == "-") {
      throw ConfigError("only one of FWD and REV can be standard input");
    }
    options_.validate();
    io::check_writable(output_);
    io::LineReader forward(forward_), reverse(reverse_);
    io::LineWriter out(output_);
    std::string forward_line, reverse_line;
    try {
      while (align_tool::next_line_pair(forward, forward_line, reverse, reverse_line,
                                        "the attention is")) {
        const align::SoftAlignment f =
            align::parse_json_line(forward_line, forward.display_name(), forward.line_number());
        const align::SoftAlignment r =
            align::parse_json_line(reverse_line, reverse.display_name(), reverse.line_number());
        try {
          out.write_line(align::to_pharaoh(align::agree(f, r, options_)));
        } catch (const DataError& e) {
          throw DataError(reverse.display_name() + ":" + std::to_string(reverse.line_number()) +
                          ": " + e.what());
        }
      }
    } catch (const DataError& e) {
      throw DataError(e.what() + out.keep_partial(out.lines()));
    }
    out.commit();
    return 0;
  }

 private:
  std::string forward_, reverse_, output_ = "-";
  align::AgreementOptions options_;
};

}  // namespace

namespace heed::align_tool {
std::unique_ptr<Subcommand> make_agree() {
  return std::make_unique<Agree>();
}
}  // namespace heed::align_tool
