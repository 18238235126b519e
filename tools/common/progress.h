// A one-line progress display on stderr for long work (training, benchmarks, the filters): redrawn
// in place on a terminal, silent otherwise (the tools then log plain lines at intervals instead).
// While active, every log message first clears the line, so a log line never starts at the end
// of the progress line; the next update draws it again below.
#pragma once

#include <memory>
#include <string>

namespace spdlog::sinks {
class sink;
}

namespace heed::cli {

class Progress {
 public:
  // Active only when stderr is a terminal and enabled is true.
  explicit Progress(bool enabled = true);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool active() const { return active_; }
  // Redraws the line with text, a bar for fraction (0..1, or < 0 for none) and the ETA
  // estimated from the elapsed time; at most ~10 redraws a second.
  void update(double fraction, const std::string& text);
  // A filter's progress: "N lines, R lines/s" (what names the unit), with a bar and the ETA
  // when the share of the input done is known (fraction >= 0: a regular file's bytes read).
  void update_count(long long done, double fraction, const char* what = "lines");
  // Clears the line (before a log message, or at the end).
  void clear();

 private:
  bool active_;
  double started_;
  double last_draw_ = -1.0;
  size_t drawn_ = 0;
  std::shared_ptr<spdlog::sinks::sink> clear_before_log_;
};

// "1:02:03" / "4:05" for seconds.
std::string format_duration(double seconds);

}  // namespace heed::cli
