// Logging set-up. Library .cpp files call spdlog directly; no header includes spdlog.
#pragma once

#include <string>

namespace heed {

enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError, kOff };

struct LogConfig {
  std::string name = "heed";         // logger name, shown as [name]
  LogLevel level = LogLevel::kWarn;  // filters default to warn, train and bench to info
  std::string file;                  // optional extra log file
};

// Whether the log's level markers are coloured: stderr is a terminal (not TERM=dumb) and
// NO_COLOR (no-color.org) is unset or empty.
bool log_in_colour();

// Creates the process logger: stderr (the level coloured when log_in_colour()) plus an optional
// file, never coloured. A failure
// to write the file (a full disk) is said once on stderr as it happens; the log goes on there.
void init_logging(const LogConfig& config);

// Flushes the log; returns why the log file could not be written ("" when it was, or there is
// none), so that a tool can end with a write error rather than lose its log unsaid.
std::string finish_logging();

// "trace|debug|info|warn|error|off" → LogLevel; throws ConfigError otherwise.
LogLevel parse_log_level(const std::string& name);
std::string to_string(LogLevel level);

// Level raised (verbose > 0) or lowered (verbose < 0) by that many steps, clamped.
LogLevel shift_log_level(LogLevel level, int steps);

}  // namespace heed
