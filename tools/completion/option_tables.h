// Every option table heed's tools declare, in one list: each tool's, and each heed-align
// subcommand's (they declare options of their own). The unit tests audit them
// (tests/tools/common/) and heed-completion writes the bash completion from them, so neither
// keeps a list of its own and a new tool or option cannot be missed by either.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/options.h"

namespace heed::cli {

using UseTable = std::function<void(const CommandLine&)>;

struct OptionTable {
  std::string tool;                      // "align": the binary heed-align
  std::string subcommand;                // heed-align's subcommand; empty: the tool's only table
  std::vector<std::string> subcommands;  // the tool's subcommands, the default first
  // Declares the table on a fresh CommandLine and calls use with it; the configuration the
  // options bind lives until use returns.
  std::function<void(const UseTable& use)> declare;
};

// Tools in the order of the README, heed-align's subcommands in its own order.
std::vector<OptionTable> every_option_table();

}  // namespace heed::cli
