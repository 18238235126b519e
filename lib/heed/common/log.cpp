#include "heed/common/log.h"

#include <spdlog/sinks/ansicolor_sink.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "heed/common/error.h"

namespace heed {
namespace {

spdlog::level::level_enum to_spdlog(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return spdlog::level::trace;
    case LogLevel::kDebug:
      return spdlog::level::debug;
    case LogLevel::kInfo:
      return spdlog::level::info;
    case LogLevel::kWarn:
      return spdlog::level::warn;
    case LogLevel::kError:
      return spdlog::level::err;
    case LogLevel::kOff:
      return spdlog::level::off;
  }
  return spdlog::level::info;
}

constexpr const char* kLevelNames[] = {"trace", "debug", "info", "warn", "error", "off"};

// The first failure to write the log file (spdlog's sinks report theirs to the logger's error
// handler, from any thread).
std::mutex log_failure_mutex;
std::string log_failure;
bool log_finishing = false;  // finish_logging's flush: its caller says the failure

}  // namespace

bool log_in_colour() {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  const char* term = std::getenv("TERM");
  return isatty(STDERR_FILENO) && !(term != nullptr && std::string(term) == "dumb");
}

void init_logging(const LogConfig& config) {
  {
    std::lock_guard<std::mutex> lock(log_failure_mutex);
    log_failure.clear();
    log_finishing = false;
  }
  std::vector<spdlog::sink_ptr> sinks;
  if (log_in_colour()) {
    sinks.push_back(
        std::make_shared<spdlog::sinks::ansicolor_stderr_sink_mt>(spdlog::color_mode::always));
  } else {
    sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
  }
  if (!config.file.empty()) {
    try {
      sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(config.file));
    } catch (const spdlog::spdlog_ex& e) {
      throw WriteError("cannot open log file '" + config.file + "': " + e.what());
    }
  }
  auto logger = std::make_shared<spdlog::logger>(config.name, sinks.begin(), sinks.end());
  // %^ … %$: the range the colour sink colours (the level); other sinks ignore the marks.
  logger->set_pattern("[%H:%M:%S.%e] [%n] [%^%l%$] %v");
  logger->set_level(to_spdlog(config.level));
  logger->flush_on(spdlog::level::warn);
  // Only the file sink throws (the stderr sinks do not check their writes).
  logger->set_error_handler([name = config.name, file = config.file](const std::string& what) {
    std::lock_guard<std::mutex> lock(log_failure_mutex);
    if (!log_failure.empty()) return;
    log_failure = "cannot write the log file '" + file + "': " + what;
    if (log_finishing) return;
    std::fprintf(stderr, "%s: warning: %s; the log goes on on stderr only\n", name.c_str(),
                 log_failure.c_str());
  });
  spdlog::set_default_logger(logger);
}

std::string finish_logging() {
  {
    std::lock_guard<std::mutex> lock(log_failure_mutex);
    log_finishing = true;
  }
  spdlog::default_logger()->flush();
  std::lock_guard<std::mutex> lock(log_failure_mutex);
  return log_failure;
}

LogLevel parse_log_level(const std::string& name) {
  for (int i = 0; i < 6; ++i) {
    if (name == kLevelNames[i]) return static_cast<LogLevel>(i);
  }
  if (name == "warning") return LogLevel::kWarn;
  throw ConfigError("--log-level: unknown level '" + name +
                    "' (expected trace, debug, info, warn, error or off)");
}

std::string to_string(LogLevel level) {
  return kLevelNames[static_cast<int>(level)];
}

LogLevel shift_log_level(LogLevel level, int steps) {
  int value = static_cast<int>(level) - steps;
  if (value < 0) value = 0;
  if (value > 5) value = 5;
  return static_cast<LogLevel>(value);
}

}  // namespace heed
