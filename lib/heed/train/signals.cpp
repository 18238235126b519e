#include "heed/train/signals.h"

#include <csignal>

namespace heed::train {
namespace {

volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_stop_signal(int signal_number) {
  if (g_stop != 0) std::signal(signal_number, SIG_DFL);  // second signal: default action next time
  g_stop = signal_number;
}

}  // namespace

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // Training writes files, not a stream: a log reader that goes away (heed-train 2>&1 | head)
  // must not kill the run. Writes to the closed pipe fail quietly instead.
  std::signal(SIGPIPE, SIG_IGN);
}

int stop_signal() {
  return g_stop;
}

void clear_stop() {
  g_stop = 0;
}

}  // namespace heed::train
