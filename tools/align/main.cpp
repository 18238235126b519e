// heed-align: word alignments. The default subcommand reads them off a model's attention; the
// others symmetrize two directions, score against gold links, draw heatmaps and run the
// classical IBM Model 2 aligner. Each subcommand is a file of its own (subcommand.h).
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "align/subcommand.h"
#include "common/options.h"
#include "common/run.h"
#include "heed/common/error.h"

namespace {

using namespace heed;

// Filled by the subcommands' static initialisers, before main() runs.
std::vector<std::pair<int, align_tool::SubcommandFactory>>& factories() {
  static std::vector<std::pair<int, align_tool::SubcommandFactory>> list;
  return list;
}

std::vector<std::unique_ptr<align_tool::Subcommand>> all_subcommands() {
  auto list = factories();
  std::sort(list.begin(), list.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::unique_ptr<align_tool::Subcommand>> subcommands;
  for (const auto& entry : list) subcommands.push_back(entry.second());
  return subcommands;
}

int align_main(int argc, char** argv) {
  auto subcommands = all_subcommands();
  if (subcommands.empty()) throw InternalError("heed-align was built without subcommands");
  std::vector<std::string> names;
  for (const auto& s : subcommands) names.push_back(s->name());
  // The subcommand is the first argument when it is not an option; only its options are
  // declared, so --help shows them alone and an option of another subcommand is refused.
  const std::string chosen = argc > 1 && argv[1][0] != '-' ? argv[1] : names.front();
  align_tool::Subcommand* subcommand = nullptr;
  for (const auto& s : subcommands) {
    if (s->name() == chosen) subcommand = s.get();
  }
  if (!subcommand) subcommand = subcommands.front().get();  // parse() names the bad word
  cli::CommandLine cl(
      {"align", subcommand->synopsis(), subcommand->description(), LogLevel::kWarn, 1, names});
  subcommand->add_options(cl);
  if (!cl.parse(argc, argv)) return 0;
  if (cl.subcommand() != subcommand->name()) {
    throw ConfigError("the subcommand '" + cl.subcommand() +
                      "' given in a config file must also be the first argument");
  }
  return subcommand->run(cl);
}

}  // namespace

namespace heed::align_tool {
bool register_subcommand(int order, SubcommandFactory factory) {
  factories().emplace_back(order, factory);
  return true;
}
}  // namespace heed::align_tool

int main(int argc, char** argv) {
  return heed::cli::run_tool(argc, argv, "align", align_main);
}
