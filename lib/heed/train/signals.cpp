#include "heed/train/signals.h"

#include <csignal>

namespace heed::train {
namespace {

volatile std::sig_atomic_t g_stop = 0;
constexpr int kSignals[] = {SIGINT, SIGTERM};
// What was installed before the GracefulStop (put back by its destructor), and what a second
// signal does: the same, or the default action where that was to ignore the signal.
struct sigaction g_before[2];
struct sigaction g_at_once[2];

extern "C" void on_stop_signal(int signal_number) {
  if (g_stop != 0) {
    // A second one: what acts at once takes it (delivered when this handler returns).
    ::sigaction(signal_number, &g_at_once[signal_number == SIGINT ? 0 : 1], nullptr);
    ::raise(signal_number);
    return;
  }
  g_stop = signal_number;
}

}  // namespace

GracefulStop::GracefulStop() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int i = 0; i < 2; ++i) {
    ::sigaction(kSignals[i], &action, &g_before[i]);
    g_at_once[i] = g_before[i];
    if (g_at_once[i].sa_handler == SIG_IGN) g_at_once[i].sa_handler = SIG_DFL;
  }
}

GracefulStop::~GracefulStop() {
  for (int i = 0; i < 2; ++i) ::sigaction(kSignals[i], &g_before[i], nullptr);
}

void ignore_broken_pipes() {
  std::signal(SIGPIPE, SIG_IGN);
}

int stop_signal() {
  return g_stop;
}

void clear_stop() {
  g_stop = 0;
}

}  // namespace heed::train
