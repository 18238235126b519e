// heed-align symmetrize: one alignment per sentence pair from the two directions' alignments,
// as fast_align's "atools -c METHOD -i FWD -j REV" computes it.
#include "heed/align/symmetrize.h"

#include <string>

#include "align/line_pairs.h"
#include "align/subcommand.h"
#include "heed/align/alignment.h"
#include "heed/common/error.h"
#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"

namespace {

using namespace heed;
namespace po = boost::program_options;

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
    cl.group("Symmetrization")
        .add_options()("forward", po::value(&forward_), "FWD: the forward alignments")(
            "reverse", po::value(&reverse_), "REV: the reverse alignments")(
            "method",
            cli::checked(&method_, [](const std::string& m) { align::parse_symmetrization(m); }),
            "intersect, union, grow-diag, grow-diag-final or grow-diag-final-and")(
            "transpose-reverse", po::bool_switch(&transpose_reverse_),
            "REV links are target-source (written by a model of the other direction): swap "
            "them first")("output,o", po::value(&output_)->default_value(output_),
                          "output file ('-' = stdout)");
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
    const align::Symmetrization method = align::parse_symmetrization(method_);
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
        out.write_line(align::to_pharaoh(align::symmetrize(f, r, method)));
      }
    } catch (const DataError& e) {
      throw DataError(e.what() + out.keep_partial(out.lines()));
    }
    out.commit();
    return 0;
  }

 private:
  std::string forward_, reverse_, output_ = "-";
  std::string method_ =
      align::symmetrization_names()[static_cast<size_t>(align::kDefaultSymmetrization)];
  bool transpose_reverse_ = false;
};

const bool registered = align_tool::register_subcommand(
    1, [] { return std::unique_ptr<align_tool::Subcommand>(new Symmetrize); });

}  // namespace
