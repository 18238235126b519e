// Exception hierarchy of the heed library and the exit codes the tools map them to.
// Library code throws; only tools/common turns exceptions into exit codes.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace heed {

// sysexits.h values, plus 1 for "ran fine but a requested threshold failed".
enum class ExitCode : int {
  kOk = 0,
  kThresholdFailed = 1,
  kUsage = 64,     // EX_USAGE
  kData = 65,      // EX_DATAERR
  kNoInput = 66,   // EX_NOINPUT
  kSoftware = 70,  // EX_SOFTWARE
  kOsError = 71,   // EX_OSERR (out of memory)
  kIoError = 74,   // EX_IOERR
  kTempFail = 75,  // EX_TEMPFAIL (busy: try again later)
};

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad option value or combination.
class ConfigError : public Error {
 public:
  using Error::Error;
};

// Malformed input data; the message carries file:line.
class DataError : public Error {
 public:
  using Error::Error;
};

// Bad magic, newer format version, truncated or corrupt file.
class FormatError : public Error {
 public:
  using Error::Error;
};

// An input file cannot be opened.
class FileError : public Error {
 public:
  using Error::Error;
};

// A write or flush failed (disk full, read-only directory ...).
class WriteError : public Error {
 public:
  using Error::Error;
};

// Writing to a closed pipe: the tools end quietly with status 0, the Unix way.
class BrokenPipe : public Error {
 public:
  BrokenPipe() : Error("broken pipe") {}
};

// Memory ran out: what was being read or built is in the message (exit 71, EX_OSERR, as for
// std::bad_alloc).
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

// Something another process holds (heed-train's output directory): try again later (exit 75).
class Busy : public Error {
 public:
  using Error::Error;
};

// A oneDNN call failed.
class BackendError : public Error {
 public:
  using Error::Error;
};

// An internal invariant failed: a bug.
class InternalError : public Error {
 public:
  using Error::Error;
};

// Stopped by a signal (SIGINT, SIGTERM); exit code 128 + signal.
class Interrupted : public Error {
 public:
  explicit Interrupted(int signal_number)
      : Error("interrupted by signal " + std::to_string(signal_number)), signal_(signal_number) {}
  int signal_number() const { return signal_; }

 private:
  int signal_;
};

// Exit code for an exception caught at the top of a tool.
int exit_code_for(const std::exception& e);

// "<path>:<line>: <what>" — the prefix every DataError uses.
std::string at_line(const std::string& path, long long line, const std::string& what);

// strerror(errno) as a std::string, thread-safe.
std::string errno_message(int err);

}  // namespace heed
