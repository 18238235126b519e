// The one wrapper around every tool's main: exceptions become one stderr line and an exit code.
#pragma once

#include <functional>
#include <string>

namespace heed::cli {

struct ToolInfo;  // common/options.h

using ToolMain = std::function<int(int argc, char** argv)>;

// Runs body; on an exception prints "heed-<tool>: error: <what>" to stderr and returns
// the exit code of heed::exit_code_for (a broken pipe ends quietly with 0). Standard streams
// the tool was started without (heed-translate <&-) stay unusable: /dev/null opened the other
// way round holds their descriptor, so reading a closed stdin fails (66) as it would closed,
// and no file the tool opens later becomes its stdin.
int run_tool(int argc, char** argv, const std::string& tool, const ToolMain& body);
// The same for a program named by its ToolInfo (program_name: bench/'s programs), whose error
// lines begin "<program>: error: ".
int run_tool(int argc, char** argv, const ToolInfo& info, const ToolMain& body);

// glibc (2.35 and later) backs malloc with transparent huge pages only when told so before the
// program starts (GLIBC_TUNABLES=glibc.malloc.hugetlb=1). Without it a model's weights, oneDNN's
// packed copies and the per-batch buffers fault in 4 KiB at a time, which on the virtual
// machines we measure costs 0.6 s of heed-translate's start-up and a quarter of its decoding
// time (docs/benchmarks.md). Re-executes the program once with the tunable set where the kernel
// allows huge pages on request; does nothing if GLIBC_TUNABLES is already set (the user's
// choice, and the guard against a second exec) or if the exec fails. The program gets exactly
// the descriptors it was started with (a closed stdin stays closed, as run_tool holds it). Call
// first in main().
void prefer_huge_pages(char** argv);

}  // namespace heed::cli
