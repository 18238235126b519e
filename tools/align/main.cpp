// heed-align: word alignments. The default subcommand reads them off a model's attention; the
// others symmetrize two directions, score against gold links, draw heatmaps, run the classical
// IBM Model 2 aligner and combine the attention of two directions. Each subcommand is a file of
// its own (subcommand.h), listed in options.cpp.
#include "align/options.h"
#include "common/run.h"

namespace {

using namespace heed;

int align_main(int argc, char** argv) {
  const align_tool::Subcommands subcommands = align_tool::subcommands();
  align_tool::Subcommand& subcommand = align_tool::chosen_subcommand(argc, argv, subcommands);
  cli::CommandLine cl(align_tool::tool_info(subcommand, subcommands));
  if (!align_tool::parse_options(argc, argv, subcommand, cl)) return 0;
  return subcommand.run(cl);
}

}  // namespace

int main(int argc, char** argv) {
  return heed::cli::run_tool(argc, argv, "align", align_main);
}
