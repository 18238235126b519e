#include "heed/train/signals.h"

#include <catch2/catch.hpp>
#include <csignal>

using namespace heed;

TEST_CASE("signals: SIGINT and SIGTERM are recorded, not fatal", "[train][fast]") {
  train::install_stop_handlers();
  train::clear_stop();
  CHECK(train::stop_signal() == 0);
  std::raise(SIGTERM);
  CHECK(train::stop_signal() == SIGTERM);
  train::clear_stop();
  std::raise(SIGINT);
  CHECK(train::stop_signal() == SIGINT);
  train::clear_stop();
  // Leave the default actions in place for the rest of the test run.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

TEST_CASE("signals: a closed log pipe does not end training (SIGPIPE ignored)", "[train][fast]") {
  train::install_stop_handlers();
  std::raise(SIGPIPE);  // would end the test run with the default action
  CHECK(train::stop_signal() == 0);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGPIPE, SIG_DFL);
}
