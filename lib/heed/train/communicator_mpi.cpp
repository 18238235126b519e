// The world of a data-parallel run on MPI (HEED_MPI): MPI_COMM_WORLD when an MPI launcher
// started this process, else one process as without MPI.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "heed/common/error.h"
#include "heed/train/communicator.h"

namespace heed::train {
namespace {

using Clock = std::chrono::steady_clock;

// Gradients are summed in buckets of this many floats (4 MiB): big enough that a message costs
// bandwidth rather than latency, small enough that the copy buffer stays in cache-friendly
// sizes and a model of any size needs only one buffer.
constexpr size_t kBucketFloats = size_t{1} << 20;

void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(std::string(call) + " failed: " + std::string(text, size_t(length)) +
              " (did another process of the run die?)");
}

// Ends the process with an error line when a collective has not returned within the timeout:
// a process that died or hangs must not leave the others waiting for ever. MPI calls stay on
// the main thread; this one only watches the clock.
class Watchdog {
 public:
  Watchdog(double timeout_seconds, int rank, int size)
      : timeout_(timeout_seconds), rank_(rank), size_(size), thread_([this] { watch(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  void arm(const char* what) {
    what_ = what;
    armed_at_.store(Clock::now().time_since_epoch().count());
  }
  void disarm() { armed_at_.store(0); }

 private:
  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(200), [this] { return done_; })) {
      const auto armed = armed_at_.load();
      if (armed == 0) continue;
      const double waited =
          std::chrono::duration<double>(Clock::now().time_since_epoch() - Clock::duration(armed))
              .count();
      if (waited < timeout_) continue;
      std::fprintf(stderr,
                   "heed-train: error: process %d of %d: no answer from the other processes for "
                   "%.0f s while %s (one died or hangs; --mpi-timeout); stopping\n",
                   rank_, size_, timeout_, what_.load());
      std::fflush(stderr);
      std::_Exit(70);
    }
  }

  const double timeout_;
  const int rank_, size_;
  std::atomic<Clock::rep> armed_at_{0};
  std::atomic<const char*> what_{""};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

class MpiCommunicator : public Communicator {
 public:
  explicit MpiCommunicator(double timeout_seconds) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    watchdog_ = std::make_unique<Watchdog>(timeout_seconds, rank_, size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  layers::LossSums sum_gradients(const std::vector<ParamRef>& params,
                                 const layers::LossSums& local) override {
    if (size_ == 1) return local;  // mpirun -np 1: one process, as without mpirun
    const auto start = Clock::now();
    double sums[3] = {local.loss, local.nll, double(local.tokens)};
    collective("summing the losses", [&] {
      return MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    });
    layers::LossSums global{sums[0], sums[1], int64_t(sums[2])};
    // Each rank holds the gradient of its shard's mean; weighted by its share of the global
    // tokens, their sum is the gradient of the global mean.
    const float share = global.tokens > 0 ? float(double(local.tokens) / sums[2]) : 0.f;
    bucket_.resize(kBucketFloats);
    size_t param = 0, offset = 0;  // where the next bucket starts
    while (param < params.size()) {
      // Pack whole or partial parameters into the bucket, remembering where they came from.
      size_t filled = 0, p = param, o = offset;
      while (p < params.size() && filled < bucket_.size()) {
        const size_t n = std::min(params[p].size - o, bucket_.size() - filled);
        const float* grad = params[p].grad + o;
        for (size_t i = 0; i < n; ++i) bucket_[filled + i] = grad[i] * share;
        filled += n;
        o += n;
        if (o == params[p].size) ++p, o = 0;
      }
      collective("summing the gradients", [&] {
        return MPI_Allreduce(MPI_IN_PLACE, bucket_.data(), int(filled), MPI_FLOAT, MPI_SUM,
                             MPI_COMM_WORLD);
      });
      for (size_t done = 0; done < filled;) {
        const size_t n = std::min(params[param].size - offset, filled - done);
        std::copy(bucket_.begin() + long(done), bucket_.begin() + long(done + n),
                  params[param].grad + offset);
        done += n;
        offset += n;
        if (offset == params[param].size) ++param, offset = 0;
      }
      param = p;
      offset = o;
    }
    communication_seconds_ += std::chrono::duration<double>(Clock::now() - start).count();
    return global;
  }

  void max(std::vector<double>& values) override {
    if (size_ == 1) return;
    collective("agreeing on the next step", [&] {
      return MPI_Allreduce(MPI_IN_PLACE, values.data(), int(values.size()), MPI_DOUBLE, MPI_MAX,
                           MPI_COMM_WORLD);
    });
  }

  void broadcast(std::vector<double>& values) override {
    if (size_ == 1) return;
    check(MPI_Bcast(values.data(), int(values.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast");
  }

  double communication_seconds() const override { return communication_seconds_; }

  void stop_watching() { watchdog_.reset(); }

 private:
  template <typename Call>
  void collective(const char* what, Call call) {
    watchdog_->arm(what);
    const int code = call();
    watchdog_->disarm();
    check(code, "MPI_Allreduce");
  }

  int rank_ = 0, size_ = 1;
  std::vector<float> bucket_;
  double communication_seconds_ = 0;
  std::unique_ptr<Watchdog> watchdog_;
};

// Set by the launchers of Open MPI, MPICH (Hydra) and PMIx-based ones (Slurm's srun).
bool started_by_mpi_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(name)) return true;
  }
  return false;
}

std::unique_ptr<MpiCommunicator> g_mpi;

}  // namespace

Communicator& world(double timeout_seconds) {
  static Communicator one_process;
  static const bool use_mpi = [&] {
    if (!started_by_mpi_launcher()) return false;
    int provided = 0;
    // Only the main thread calls MPI (the watchdog never does).
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    g_mpi = std::make_unique<MpiCommunicator>(timeout_seconds);
    return true;
  }();
  if (use_mpi) return *g_mpi;
  return one_process;
}

int finish_world(int exit_code) {
  if (!g_mpi) return exit_code;
  g_mpi->stop_watching();
  // Success, or a stop by signal that every process agreed on before any of them threw
  // (trainer.cpp): all end together. Anything else happened to this process alone.
  if (exit_code == 0 || exit_code > 128) {
    MPI_Finalize();
  } else {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
  }
  return exit_code;
}

}  // namespace heed::train
