#include "heed/train/signals.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>

#include "support/child.h"

using namespace heed;

namespace {

bool handler_is(int signal_number, void (*handler)(int)) {
  struct sigaction now {};
  ::sigaction(signal_number, nullptr, &now);
  return now.sa_handler == handler;
}

}  // namespace

TEST_CASE("signals: while a GracefulStop lives, SIGINT and SIGTERM are recorded, not fatal",
          "[train][fast]") {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  {
    const train::GracefulStop graceful;
    train::clear_stop();
    CHECK(train::stop_signal() == 0);
    std::raise(SIGTERM);
    CHECK(train::stop_signal() == SIGTERM);
    train::clear_stop();
    std::raise(SIGINT);
    CHECK(train::stop_signal() == SIGINT);
    train::clear_stop();
  }
  // Outside it the handlers that were there act again (here the default actions).
  CHECK(handler_is(SIGINT, SIG_DFL));
  CHECK(handler_is(SIGTERM, SIG_DFL));
}

TEST_CASE("signals: a second signal while a stop is pending acts at once", "[train][fast]") {
  CHECK(test::signal_ending_child([] {
          std::signal(SIGTERM, SIG_IGN);  // as a background job: the second one still ends it
          const train::GracefulStop graceful;
          std::raise(SIGTERM);
          if (train::stop_signal() != SIGTERM) _exit(1);
          std::raise(SIGTERM);
        }) == SIGTERM);
}

TEST_CASE("signals: a closed log pipe does not end training (SIGPIPE ignored)", "[train][fast]") {
  train::ignore_broken_pipes();
  std::raise(SIGPIPE);  // would end the test run with the default action
  CHECK(train::stop_signal() == 0);
  std::signal(SIGPIPE, SIG_DFL);
}
