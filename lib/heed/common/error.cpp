#include "heed/common/error.h"

#include <cstring>
#include <new>

namespace heed {

int exit_code_for(const std::exception& e) {
  auto code = [](ExitCode c) { return static_cast<int>(c); };
  if (auto* interrupted = dynamic_cast<const Interrupted*>(&e)) {
    return 128 + interrupted->signal_number();
  }
  if (dynamic_cast<const BrokenPipe*>(&e)) return code(ExitCode::kOk);
  if (dynamic_cast<const ConfigError*>(&e)) return code(ExitCode::kUsage);
  if (dynamic_cast<const DataError*>(&e)) return code(ExitCode::kData);
  if (dynamic_cast<const FormatError*>(&e)) return code(ExitCode::kData);
  if (dynamic_cast<const FileError*>(&e)) return code(ExitCode::kNoInput);
  if (dynamic_cast<const WriteError*>(&e)) return code(ExitCode::kIoError);
  if (dynamic_cast<const std::bad_alloc*>(&e)) return code(ExitCode::kOsError);
  if (dynamic_cast<const OutOfMemory*>(&e)) return code(ExitCode::kOsError);
  if (dynamic_cast<const Busy*>(&e)) return code(ExitCode::kTempFail);
  return code(ExitCode::kSoftware);
}

std::string at_line(const std::string& path, long long line, const std::string& what) {
  return (path == "-" ? std::string("<stdin>") : path) + ":" + std::to_string(line) + ": " + what;
}

std::string errno_message(int err) {
  char buffer[256];
  // GNU strerror_r returns a char* that may or may not point into buffer.
  const char* msg = strerror_r(err, buffer, sizeof buffer);
  return std::string(msg);
}

}  // namespace heed
