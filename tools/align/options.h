// heed-align's subcommands and their option tables (each subcommand declares its own options,
// align/subcommand.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "align/subcommand.h"
#include "common/options.h"

namespace heed::align_tool {

using Subcommands = std::vector<std::unique_ptr<Subcommand>>;

// Every subcommand, the default (extract) first.
Subcommands subcommands();
// heed-align's tool information when subcommand is the one chosen.
cli::ToolInfo tool_info(const Subcommand& subcommand, const Subcommands& all);
// The subcommand argv names as its first argument (when that is not an option), else the
// default; an unknown name gives the default, whose parse then names the bad word.
Subcommand& chosen_subcommand(int argc, char** argv, const Subcommands& all);
// Declares the options of subcommand on cl (built from tool_info) and parses argv; false when
// the tool must exit 0 at once (--help, --version, --print-config).
bool parse_options(int argc, char** argv, Subcommand& subcommand, cli::CommandLine& cl);

}  // namespace heed::align_tool
