#include "heed/common/parallel.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>

namespace heed {

void parallel_for_chunks(size_t n, size_t chunk, int threads,
                         const std::function<void(size_t begin, size_t end, int worker)>& fn) {
  chunk = std::max<size_t>(chunk, 1);
  const size_t ranges = n / chunk + (n % chunk != 0 ? 1 : 0);
  if (ranges == 0) return;
  const int team =
      static_cast<int>(std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), ranges));
  // Ranges are claimed in increasing order, so when range k fails every range below it has
  // been claimed already: they all finish, and the lowest failure is the same in every run.
  std::atomic<size_t> next{0}, lowest_failure{ranges};
  std::exception_ptr error;
  std::mutex error_mutex;
#pragma omp parallel num_threads(team)
  {
    const int worker = omp_get_thread_num();
    for (size_t k = next++; k < lowest_failure.load(); k = next++) {
      const size_t begin = k * chunk;
      try {
        fn(begin, begin + std::min(chunk, n - begin), worker);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (k < lowest_failure.load()) {
          lowest_failure = k;
          error = std::current_exception();
        }
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

void parallel_for(size_t n, int threads, const std::function<void(size_t i)>& fn) {
  parallel_for_chunks(n, 1, threads, [&fn](size_t begin, size_t, int) { fn(begin); });
}

}  // namespace heed
