#include "run.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <boost/program_options/errors.hpp>
#include <clocale>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "heed/common/error.h"
#include "heed/io/line_writer.h"

namespace heed::cli {
namespace {

int report(const std::string& tool, const std::string& what, int code) {
  std::fflush(stdout);
  std::fprintf(stderr, "heed-%s: error: %s\n", tool.c_str(), what.c_str());
  return code;
}

// SIGINT and SIGTERM keep their default action (the shell sees 130 / 143), but first the
// temporary files of unfinished outputs are removed: a stopped tool leaves no half file.
// heed-train replaces these handlers with its own graceful stop.
extern "C" void on_termination_signal(int signal_number) {
  io::remove_temporary_files();
  std::raise(signal_number);  // SA_RESETHAND restored the default action
}

void clean_up_on_termination_signals() {
  for (int signal_number : {SIGINT, SIGTERM}) {
    struct sigaction current {};
    sigaction(signal_number, nullptr, &current);
    if (current.sa_handler == SIG_IGN) continue;  // e.g. started with nohup or in the background
    struct sigaction action {};
    action.sa_handler = on_termination_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    sigaction(signal_number, &action, nullptr);
  }
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
  clean_up_on_termination_signals();
  try {
    int code = body(argc, argv);
    if (std::fflush(stdout) != 0) {
      if (errno == EPIPE) return 0;
      return report(tool, "cannot write '<stdout>': " + errno_message(errno),
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
  } catch (const std::exception& e) {
    return report(tool, e.what(), exit_code_for(e));
  } catch (...) {
    return report(tool, "unknown error", static_cast<int>(ExitCode::kSoftware));
  }
}

}  // namespace heed::cli
