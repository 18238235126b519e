// Graceful stop on SIGINT / SIGTERM: the handler only records the signal; the training loop
// polls it between updates, saves a checkpoint and then stops with exit code 128 + signal.
#pragma once

namespace heed::train {

// Installs the handlers (idempotent). A second Ctrl-C while a stop is pending restores the
// default action, so an impatient user can still kill the process. Also ignores SIGPIPE: a
// closed log pipe must not end a run.
void install_stop_handlers();
// 0 while running; the signal number once a stop was requested.
int stop_signal();
// Forget a pending stop (tests).
void clear_stop();

}  // namespace heed::train
