// Where a training update spends its time, phase by phase (bench/train_phases, docs/benchmarks.md).
// Off by default: a Scope then costs one load and a branch. When enabled, each phase gets the
// wall time spent inside its innermost Scope, exclusive of the scopes nested in it (the
// attention inside the decoder is attention time, not decoder time), so the phases add up to
// the time spent under any Scope. Counting is per thread: the thread that runs the update
// (oneDNN's and OpenMP's workers run inside the calls it times).
#pragma once

#include <array>
#include <chrono>
#include <cstddef>

namespace heed::profile {

enum class Phase : int {
  kBatching,    // assembling the padded batch
  kEncoder,     // embeddings, encoder RNNs, forward and backward
  kDecoderRnn,  // target embeddings, bridge, decoder RNNs, their glue
  kAttention,   // key preparation, scores, normalisation, context, the attentional layer
  kOutput,      // output projection, softmax, loss and their backward
  kOptimizer,   // clearing gradients, clipping, the optimizer, repacking weights
  kCount
};
constexpr size_t kPhases = static_cast<size_t>(Phase::kCount);

const char* phase_name(Phase phase);  // "batching", "encoder", "decoder_rnn", ...

void set_enabled(bool on);
bool enabled();
// Seconds per phase since the last reset(), on this thread.
std::array<double, kPhases> seconds();
void reset();

class Scope {
 public:
  explicit Scope(Phase phase);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  bool active_;
  int outer_ = -1;  // the phase this scope interrupted, -1 at the top
};

}  // namespace heed::profile
