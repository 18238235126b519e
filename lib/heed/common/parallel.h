// heed's one threading helper: parallel loops on OpenMP, the runtime oneDNN already runs on (one
// runtime and one pool of threads per process), with exceptions carried out of the threads.
// Only parallel.cpp includes <omp.h>; kernels whose loops are plain arithmetic keep their own
// `#pragma omp` loops (docs/architecture.md, "Threads").
#pragma once

#include <cstddef>
#include <functional>

namespace heed {

// Calls fn(begin, end, worker) once for each consecutive range [k·chunk, min(n, (k+1)·chunk))
// of [0, n), handing the ranges out in order to at most `threads` threads (fewer when there are
// fewer ranges; threads < 1 counts as 1, chunk 0 as 1) as they become free. worker
// (0 <= worker < threads) names the thread making the call: calls with the same worker never
// overlap, so per-worker scratch needs no lock. Which worker gets which range is not fixed, so
// results must not depend on it. Inside another parallel region the calling thread runs every
// range (OpenMP does not nest by default).
//
// Exceptions: a throwing call ends its range; ranges already handed out still run, later ones
// do not start, and once every thread is done the exception of the lowest failing range is
// rethrown: the same one for any thread count when failures depend only on the range.
void parallel_for_chunks(size_t n, size_t chunk, int threads,
                         const std::function<void(size_t begin, size_t end, int worker)>& fn);

// Calls fn(i) for each i in [0, n): parallel_for_chunks with ranges of one index (the lowest
// failing index's exception is rethrown).
void parallel_for(size_t n, int threads, const std::function<void(size_t i)>& fn);

}  // namespace heed
