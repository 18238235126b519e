#include "run.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options/errors.hpp>
#include <cerrno>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>

#include "heed/common/error.h"
#include "heed/common/log.h"
#include "heed/io/line_writer.h"
#include "options.h"

namespace heed::cli {
namespace {

int report(const std::string& program, const std::string& what, int code) {
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
  std::fprintf(stderr, "%s: error: %s\n", program.c_str(), line.c_str());
  return code;
}

// A standard descriptor that is closed gets /dev/null opened the other way round (gnulib's
// stdopen): reading a closed stdin, or writing a closed stdout, then fails with EBADF as it
// would closed, and no file opened later can take the descriptor.
void hold_closed_standard_streams() {
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int held = ::open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
    if (held >= 0 && held != fd) ::close(held);  // a lower one was closed too: taken first
  }
}

// The first line of a small system file ("" if it cannot be read), through a descriptor that
// is closed before this returns: nothing opened here survives an exec.
std::string first_line_of(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char text[256];
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  const std::string line(text, size_t(std::max<ssize_t>(n, 0)));
  return line.substr(0, line.find('\n'));
}

}  // namespace

void prefer_huge_pages(char** argv) {
  hold_closed_standard_streams();
#ifdef __linux__
  if (std::getenv("GLIBC_TUNABLES") != nullptr) return;
  const std::string modes = first_line_of("/sys/kernel/mm/transparent_hugepage/enabled");
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
  ToolInfo info;
  info.name = tool;
  return run_tool(argc, argv, info, body);
}

int run_tool(int argc, char** argv, const ToolInfo& info, const ToolMain& body) {
  const std::string tool = program_name(info);
  // Where the options' limits are told: the man page of a tool, --help of bench/'s programs.
  const std::string limits = info.program.empty() ? tool + "(1)" : tool + " --help";
  hold_closed_standard_streams();
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
    return report(tool, std::string(e.what()) + " (see " + tool + " --help)",
                  static_cast<int>(ExitCode::kUsage));
  } catch (const std::bad_alloc&) {
    // Reading and translating say what they were doing (OutOfMemory); an allocation anywhere
    // else at least says what ran out.
    return report(tool,
                  "out of memory (a size too large for this machine? see the options' limits in " +
                      limits + ")",
                  static_cast<int>(ExitCode::kOsError));
  } catch (const std::exception& e) {
    return report(tool, e.what(), exit_code_for(e));
  } catch (...) {
    return report(tool, "unknown error", static_cast<int>(ExitCode::kSoftware));
  }
}

}  // namespace heed::cli
