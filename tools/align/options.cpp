#include "align/options.h"

#include "heed/common/error.h"

namespace heed::align_tool {

Subcommands subcommands() {
  Subcommands list;
  list.push_back(make_extract());
  list.push_back(make_symmetrize());
  list.push_back(make_score());
  list.push_back(make_plot());
  list.push_back(make_ibm2());
  list.push_back(make_agree());
  return list;
}

cli::ToolInfo tool_info(const Subcommand& subcommand, const Subcommands& all) {
  std::vector<std::string> names;
  for (const auto& s : all) names.push_back(s->name());
  return {"align", subcommand.synopsis(), subcommand.description(), LogLevel::kWarn, 1, names};
}

Subcommand& chosen_subcommand(int argc, char** argv, const Subcommands& all) {
  if (all.empty()) throw InternalError("heed-align was built without subcommands");
  const std::string chosen = argc > 1 && argv[1][0] != '-' ? argv[1] : all.front()->name();
  for (const auto& s : all) {
    if (s->name() == chosen) return *s;
  }
  return *all.front();
}

bool parse_options(int argc, char** argv, Subcommand& subcommand, cli::CommandLine& cl) {
  // Only the chosen subcommand's options are declared, so --help shows them alone and an option
  // of another subcommand is refused.
  subcommand.add_options(cl);
  if (!cl.parse(argc, argv)) return false;
  if (cl.subcommand() != subcommand.name()) {
    throw ConfigError("the subcommand '" + cl.subcommand() +
                      "' given in a config file must also be the first argument");
  }
  return true;
}

}  // namespace heed::align_tool
