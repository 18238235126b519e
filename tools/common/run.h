// The one wrapper around every tool's main: exceptions become one stderr line and an exit code.
#pragma once

#include <functional>
#include <string>

namespace heed::cli {

using ToolMain = std::function<int(int argc, char** argv)>;

// Runs body; on an exception prints "heed-<tool>: error: <what>" to stderr and returns
// the exit code of heed::exit_code_for (a broken pipe ends quietly with 0).
int run_tool(int argc, char** argv, const std::string& tool, const ToolMain& body);

}  // namespace heed::cli
