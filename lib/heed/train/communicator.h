// What data-parallel training needs from the processes of a run (heed-train under mpirun):
// the sum of the ranks' gradients, agreement on when to stop, and rank 0's validation verdict.
// One process is a world of size 1 whose operations do nothing. With MPI (HEED_MPI), world() is
// MPI_COMM_WORLD when an MPI launcher started the process (docs/scale-out.md).
#pragma once

#include <vector>

#include "heed/layers/output.h"
#include "heed/train/optimizer.h"

namespace heed::train {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }

  // On entry each rank holds the gradients of its shard's mean loss over local.tokens targets
  // (an empty shard: zero gradients and sums). On return every rank holds the gradients of the
  // global batch's mean loss, bit-identical on all ranks, and the sums of the global batch.
  virtual layers::LossSums sum_gradients(const std::vector<ParamRef>& params,
                                         const layers::LossSums& local) {
    (void)params;
    return local;
  }
  // The element-wise maximum over the ranks, in place: stop requests and the clock.
  virtual void max(std::vector<double>& values) { (void)values; }
  // Rank 0's values to every rank, in place. Others wait for as long as rank 0 takes (it may be
  // validating): no watchdog here, the MPI launcher ends the job if rank 0 dies.
  virtual void broadcast(std::vector<double>& values) { (void)values; }
  // Seconds spent in sum_gradients so far (the communication of the update).
  virtual double communication_seconds() const { return 0; }
};

// The processes of this run. The first call starts MPI when heed was built with it and an MPI
// launcher started the process; collectives then stop the process with an error line after
// timeout_seconds without an answer (a rank died or hangs).
Communicator& world(double timeout_seconds = 300);
// Call once before the program exits with exit_code: MPI_Finalize after success or a stop that
// every rank agreed on, MPI_Abort (which ends the other ranks at once) after a failure of this
// rank alone. Returns exit_code.
int finish_world(int exit_code);

}  // namespace heed::train
