#include "run.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <boost/program_options/errors.hpp>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <new>

#include "heed/common/error.h"
#include "heed/common/log.h"
#include "heed/io/line_writer.h"

namespace heed::cli {
namespace {

int report(const std::string& tool, const std::string& what, int code) {
  std::fflush(stdout);
  // One line whatever the message holds (a path with a newline in it): line ends are escaped.
  std::string line;
  for (const char c : what) {
    if (c == '\n') {
      line += "\\n";
    } else if (c == '\r') {
      line += "\\r";
    } else {
      line += c;
    }
  }
  std::fprintf(stderr, "heed-%s: error: %s\n", tool.c_str(), line.c_str());
  return code;
}

}  // namespace

void prefer_huge_pages(char** argv) {
#ifdef __linux__
  if (std::getenv("GLIBC_TUNABLES") != nullptr) return;
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(thp, modes);
  if (modes.find("[madvise]") == std::string::npos && modes.find("[always]") == std::string::npos) {
    return;
  }
  if (setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1) != 0) return;
  execv("/proc/self/exe", argv);
  unsetenv("GLIBC_TUNABLES");  // the exec failed: go on with ordinary pages
#else
  (void)argv;
#endif
}

int run_tool(int argc, char** argv, const std::string& tool, const ToolMain& body) {
  std::setlocale(LC_ALL, "C");
  std::ios::sync_with_stdio(false);
  // Every tool: a stop by SIGINT, SIGTERM or SIGHUP leaves no temporary output file behind
  // (heed-train then installs its own graceful stop over SIGINT and SIGTERM).
  io::remove_temp_files_on_signal();
  try {
    int code = body(argc, argv);
    if (std::fflush(stdout) != 0) {
      if (errno == EPIPE) return 0;
      return report(tool, "cannot write '<stdout>': " + errno_message(errno),
                    static_cast<int>(ExitCode::kIoError));
    }
    // As tee(1): the work is done, but a log asked for and not written is a write error.
    if (const std::string failure = finish_logging(); !failure.empty() && code == 0) {
      return report(tool, failure + " (the work itself is done)",
                    static_cast<int>(ExitCode::kIoError));
    }
    return code;
  } catch (const BrokenPipe&) {
    return 0;
  } catch (const Interrupted& e) {
    spdlog::warn("{}", e.what());
    std::fflush(stdout);
    return exit_code_for(e);
  } catch (const boost::program_options::error& e) {
    return report(tool, std::string(e.what()) + " (see heed-" + tool + " --help)",
                  static_cast<int>(ExitCode::kUsage));
  } catch (const std::bad_alloc&) {
    // Reading and translating say what they were doing (OutOfMemory); an allocation anywhere
    // else at least says what ran out.
    return report(
        tool,
        "out of memory (a size too large for this machine? see the options' limits in heed-" +
            tool + "(1))",
        static_cast<int>(ExitCode::kOsError));
  } catch (const std::exception& e) {
    return report(tool, e.what(), exit_code_for(e));
  } catch (...) {
    return report(tool, "unknown error", static_cast<int>(ExitCode::kSoftware));
  }
}

}  // namespace heed::cli
