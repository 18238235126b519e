#include "progress.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>

namespace heed::cli {
namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Goes first among the logger's sinks: clears the progress line before the others write.
class ClearProgressSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit ClearProgressSink(Progress& progress) : progress_(progress) {}

 protected:
  void sink_it_(const spdlog::details::log_msg&) override { progress_.clear(); }
  void flush_() override {}

 private:
  Progress& progress_;
};

}  // namespace

Progress::Progress(bool enabled) : active_(enabled && isatty(STDERR_FILENO)), started_(now()) {
  if (!active_) return;
  clear_before_log_ = std::make_shared<ClearProgressSink>(*this);
  auto& sinks = spdlog::default_logger()->sinks();
  sinks.insert(sinks.begin(), clear_before_log_);
}

Progress::~Progress() {
  clear();
  if (!clear_before_log_) return;
  auto& sinks = spdlog::default_logger()->sinks();
  sinks.erase(std::remove(sinks.begin(), sinks.end(), clear_before_log_), sinks.end());
}

void Progress::update(double fraction, const std::string& text) {
  if (!active_) return;
  const double t = now();
  if (last_draw_ >= 0.0 && t - last_draw_ < 0.1 && fraction < 1.0) return;
  last_draw_ = t;
  std::string line;
  if (fraction >= 0.0) {
    const double f = std::min(1.0, fraction);
    constexpr int kWidth = 24;
    const int filled = static_cast<int>(std::lround(f * kWidth));
    line = "[" + std::string(static_cast<size_t>(filled), '#') +
           std::string(static_cast<size_t>(kWidth - filled), '.') + "] ";
    char percent[16];
    std::snprintf(percent, sizeof percent, "%3.0f%% ", 100.0 * f);
    line += percent;
    if (f > 0.0 && f < 1.0) line += "ETA " + format_duration((t - started_) * (1.0 - f) / f) + " ";
  }
  line += text;
  std::fprintf(stderr, "\r%s", line.c_str());
  if (line.size() < drawn_) std::fprintf(stderr, "%*s", static_cast<int>(drawn_ - line.size()), "");
  std::fflush(stderr);
  drawn_ = line.size();
}

void Progress::update_count(long long done, double fraction, const char* what) {
  if (!active_) return;
  const double seconds = now() - started_;
  char text[96];
  std::snprintf(text, sizeof text, "%lld %s, %.0f %s/s", done, what,
                seconds > 0 ? double(done) / seconds : 0.0, what);
  update(fraction, text);
}

void Progress::clear() {
  if (!active_ || drawn_ == 0) return;
  std::fprintf(stderr, "\r%*s\r", static_cast<int>(drawn_), "");
  std::fflush(stderr);
  drawn_ = 0;
}

std::string format_duration(double seconds) {
  if (!(seconds >= 0.0) || seconds > 1e8) return "--:--";
  const long total = std::lround(seconds);
  char buffer[32];
  if (total >= 3600) {
    std::snprintf(buffer, sizeof buffer, "%ld:%02ld:%02ld", total / 3600, (total / 60) % 60,
                  total % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%ld:%02ld", total / 60, total % 60);
  }
  return buffer;
}

}  // namespace heed::cli
