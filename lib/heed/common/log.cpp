#include "heed/common/log.h"

#include <spdlog/sinks/ansicolor_sink.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

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

}  // namespace

void init_logging(const LogConfig& config) {
  std::vector<spdlog::sink_ptr> sinks;
  if (isatty(STDERR_FILENO)) {
    sinks.push_back(std::make_shared<spdlog::sinks::ansicolor_stderr_sink_mt>());
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
  logger->set_pattern("[%H:%M:%S.%e] [%n] [%l] %v");
  logger->set_level(to_spdlog(config.level));
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(logger);
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
