// Stopping work that has something to save on SIGINT / SIGTERM. While a GracefulStop lives the
// handler only records the signal; the work polls stop_signal() between updates, saves a
// checkpoint and then stops with exit code 128 + signal (throwing Interrupted). Outside one
// the signals act at once, with the handlers that were there before (run_tool's: temporary
// files and what io::RemovedOnStop names are removed, then the process ends by the signal) —
// right where there is nothing to save yet: a run waiting to open a FIFO or reading a slow pipe
// stops at the first Ctrl-C, not at its first update.
#pragma once

namespace heed::train {

class GracefulStop {
 public:
  // Installs the recording handler for SIGINT and SIGTERM. A second signal while a stop is
  // pending acts at once (the handler that was there, or the default action if that ignored
  // it), so an impatient user can still end the process.
  GracefulStop();
  // Puts back the handlers that were there; a stop recorded meanwhile stays pending.
  ~GracefulStop();
  GracefulStop(const GracefulStop&) = delete;
  GracefulStop& operator=(const GracefulStop&) = delete;
};

// Ignores SIGPIPE: work that writes files, not a stream, must not end because a log reader
// went away (heed-train 2>&1 | head); writes to the closed pipe fail quietly instead.
void ignore_broken_pipes();
// 0 while running; the signal number once a stop was requested.
int stop_signal();
// Forget a pending stop (tests).
void clear_stop();

}  // namespace heed::train
