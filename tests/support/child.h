// A forked child for tests of what a signal does to a process.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <functional>

namespace heed::test {

// Runs body in a forked child and returns the signal that ended it: 0 when it exited instead
// (body returning, or _exit), -1 when it could not be started or waited for.
inline int signal_ending_child(const std::function<void()>& body) {
  const pid_t child = ::fork();
  if (child == 0) {
    body();
    ::_exit(0);
  }
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child) return -1;
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

}  // namespace heed::test
