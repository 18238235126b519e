#include "heed/common/log.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

using namespace heed;

namespace {

// The tests' logging again (silenced, as tests/main.cpp sets it), whatever a test left behind.
struct RestoreLogging {
  ~RestoreLogging() {
    LogConfig silent;
    silent.level = LogLevel::kOff;
    init_logging(silent);
  }
};

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("the log file holds the log, and finishing says nothing failed", "[common][fast]") {
  RestoreLogging restore;
  char path[] = "/tmp/heed-log-test-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  LogConfig config;
  config.level = LogLevel::kInfo;
  config.file = path;
  init_logging(config);
  spdlog::info("a line for the file");
  CHECK(finish_logging().empty());
  CHECK(file_text(path).find("[info] a line for the file") != std::string::npos);
  std::remove(path);
}

TEST_CASE(
    "a log file that cannot be written is a failure finishing names, once set up again "
    "it is forgotten",
    "[common][fast]") {
  if (access("/dev/full", W_OK) != 0) {
    WARN("skipped: no writable /dev/full here");
    return;
  }
  RestoreLogging restore;
  LogConfig config;
  config.level = LogLevel::kInfo;
  config.file = "/dev/full";
  init_logging(config);
  // (Info is not flushed at once: the failure is seen by finish_logging's flush, which says
  // nothing on stderr itself, so that the test's output stays clean.)
  spdlog::info("a line that cannot be saved");
  const std::string failure = finish_logging();
  CHECK(failure.rfind("cannot write the log file '/dev/full': ", 0) == 0);
  CHECK(failure.find("No space left on device") != std::string::npos);
  // Only the first failure is kept.
  spdlog::info("another");
  CHECK(finish_logging() == failure);
  LogConfig plain;
  plain.level = LogLevel::kOff;
  init_logging(plain);
  CHECK(finish_logging().empty());
}
