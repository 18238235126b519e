// heed-align symmetrize: one alignment per sentence pair from the two directions' alignments,
// as fast_align's "atools -c METHOD -i FWD -j REV" computes it.
#include "heed/align/symmetrize.h"

#include <memory>
#include <string>

#include "align/line_pairs.h"
#include "align/subcommand.h"
#include "heed/align/alignment.h"
#include "heed/common/error.h"
#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"

namespace {

using namespace heed;
class Symmetrize final : public align_tool::Subcommand {
 public:
  std::string name() const override { return "symmetrize"; }
  std::string synopsis() const override {
    return "symmetrize FWD REV [--method M] [--transpose-reverse] [-o OUT]";
  }
  std::string description() const override {
    return "Combines the alignments of the two translation directions into one, link for link "
           "as fast_align's atools does: intersect, union, grow-diag, grow-diag-final or "
           "grow-diag-final-and. FWD and REV hold one line of zero-based Pharaoh links per "
           "sentence pair, both source-target (as fast_align -r writes the reverse direction); "
           "--transpose-reverse reads REV as target-source links. '-' reads one of them from "
           "standard input.";
  }

  void add_options(cli::CommandLine& cl) override {
    const std::string default_method =
        align::symmetrization_names()[static_cast<size_t>(align::kDefaultSymmetrization)];
    // clang-format off
    cl.group("Symmetrization")
        ("forward",           cli::text(&forward_), "FWD: the forward alignments")
        ("reverse",           cli::text(&reverse_), "REV: the reverse alignments")
        ("method",            cli::choice(&method_, default_method, align::parse_symmetrization),
                              "intersect, union, grow-diag, grow-diag-final or grow-diag-final-and")
        ("transpose-reverse", cli::flag(&transpose_reverse_),
                              "REV links are target-source (written by a model of the other "
                              "direction): swap them first")
        ("output,o",          cli::text_with_default(&output_), "output file ('-' = stdout)");
    // clang-format on
    cl.positional("forward", 1);
    cl.positional("reverse", 1);
  }

  int run(const cli::CommandLine&) override {
    if (forward_.empty() || reverse_.empty()) {
      throw ConfigError("symmetrize needs two alignment files, FWD and REV");
    }
    if (forward_ == "-" && reverse_ == "-") {
      throw ConfigError("only one of FWD and REV can be standard input");
    }
    io::check_writable(output_);
    io::LineReader forward(forward_), reverse(reverse_);
    io::LineWriter out(output_);
    std::string forward_line, reverse_line;
    try {
      while (align_tool::next_line_pair(forward, forward_line, reverse, reverse_line,
                                        "the alignments are")) {
        const align::Alignment f =
            align::parse_pharaoh(forward_line, forward.display_name(), forward.line_number());
        align::Alignment r =
            align::parse_pharaoh(reverse_line, reverse.display_name(), reverse.line_number());
        if (transpose_reverse_) r = align::transpose(r);
        out.write_line(align::to_pharaoh(align::symmetrize(f, r, method_)));
      }
    } catch (const DataError& e) {
      throw DataError(e.what() + out.keep_partial(out.lines()));
    }
    out.commit();
    return 0;
  }

 private:
  std::string forward_, reverse_, output_ = "-";
  align::Symmetrization method_ = align::kDefaultSymmetrization;
  bool transpose_reverse_ = false;
};

}  // namespace

namespace heed::align_tool {
std::unique_ptr<Subcommand> make_symmetrize() {
  return std::make_unique<Symmetrize>();
}
}  // namespace heed::align_tool
