#include "heed/common/profile.h"

#include <atomic>

namespace heed::profile {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<bool> g_enabled{false};

struct ThreadCounters {
  std::array<double, kPhases> seconds{};
  int current = -1;  // the innermost open phase
  Clock::time_point since;
};
thread_local ThreadCounters t_counters;

// Charges the time since the last switch to the open phase and restarts the clock.
void charge(ThreadCounters& c) {
  const Clock::time_point now = Clock::now();
  if (c.current >= 0) {
    c.seconds[size_t(c.current)] += std::chrono::duration<double>(now - c.since).count();
  }
  c.since = now;
}

}  // namespace

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::kBatching:
      return "batching";
    case Phase::kEncoder:
      return "encoder";
    case Phase::kDecoderRnn:
      return "decoder_rnn";
    case Phase::kAttention:
      return "attention";
    case Phase::kOutput:
      return "output";
    case Phase::kOptimizer:
      return "optimizer";
    case Phase::kCount:
      break;
  }
  return "?";
}

void set_enabled(bool on) {
  g_enabled.store(on, std::memory_order_relaxed);
}

bool enabled() {
  return g_enabled.load(std::memory_order_relaxed);
}

std::array<double, kPhases> seconds() {
  return t_counters.seconds;
}

void reset() {
  t_counters.seconds.fill(0.0);
}

Scope::Scope(Phase phase) : active_(enabled()) {
  if (!active_) return;
  ThreadCounters& c = t_counters;
  charge(c);
  outer_ = c.current;
  c.current = static_cast<int>(phase);
}

Scope::~Scope() {
  if (!active_) return;
  ThreadCounters& c = t_counters;
  charge(c);
  c.current = outer_;
}

}  // namespace heed::profile
