// Built without MPI: every run is one process.
#include "heed/train/communicator.h"

namespace heed::train {

Communicator& world(double timeout_seconds) {
  (void)timeout_seconds;
  static Communicator one_process;
  return one_process;
}

int finish_world(int exit_code) {
  return exit_code;
}

}  // namespace heed::train
