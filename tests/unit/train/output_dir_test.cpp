#include "heed/train/output_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>

#include "heed/common/error.h"
#include "support/child.h"
#include "support/files.h"
#include "support/temp_dir.h"

using namespace heed;
using namespace heed::test;
namespace fs = std::filesystem;

TEST_CASE("output_dir: the lock holds the pid; a second lock is Busy naming it and changes nothing",
          "[train][fast]") {
  TempDir dir;
  const std::string run = dir.path("run");
  train::OutputDirLock first(run);
  CHECK(fs::is_directory(run));
  CHECK(read_file(run + "/.lock") == std::to_string(::getpid()) + "\n");
  CHECK_THROWS_AS(train::OutputDirLock(run), Busy);
  CHECK_THROWS_WITH(train::OutputDirLock(run),
                    Catch::Contains("another heed-train (pid " + std::to_string(::getpid()) + ")"));
  // The refused one removed nothing: the holder's lock file and directory are there.
  CHECK(read_file(run + "/.lock") == std::to_string(::getpid()) + "\n");
}

TEST_CASE("output_dir: a lock file that is a link or not a regular file is refused, unwritten",
          "[train][fast]") {
  TempDir dir;
  const std::string precious = write_file(dir.path("precious"), "precious\n");
  fs::create_directories(dir.path("sym"));
  fs::create_symlink(precious, dir.path("sym/.lock"));
  CHECK_THROWS_AS(train::OutputDirLock(dir.path("sym")), WriteError);
  CHECK_THROWS_WITH(train::OutputDirLock(dir.path("sym")),
                    Catch::Contains("sym/.lock: the lock file is a symbolic link"));
  fs::create_directories(dir.path("hard"));
  fs::create_hard_link(precious, dir.path("hard/.lock"));
  CHECK_THROWS_WITH(train::OutputDirLock(dir.path("hard")),
                    Catch::Contains("hard/.lock: the lock file has other hard links"));
  fs::create_directories(dir.path("fifo"));
  REQUIRE(::mkfifo(dir.path("fifo/.lock").c_str(), 0644) == 0);
  CHECK_THROWS_WITH(train::OutputDirLock(dir.path("fifo")),
                    Catch::Contains("fifo/.lock: the lock file is not a regular file"));
  CHECK(read_file(precious) == "precious\n");
}

TEST_CASE("output_dir: abandon removes the directory it made when it is empty", "[train][fast]") {
  TempDir dir;
  {
    train::OutputDirLock lock(dir.path("made"));
    lock.abandon();
  }
  CHECK_FALSE(fs::exists(dir.path("made")));
  fs::create_directories(dir.path("given"));
  {
    train::OutputDirLock lock(dir.path("given"));
    lock.abandon();
  }
  CHECK(fs::is_directory(dir.path("given")));
  CHECK(fs::exists(dir.path("given/.lock")));  // a directory that was there: as after any run
  {
    train::OutputDirLock lock(dir.path("written"));
    write_file(dir.path("written/checkpoint.heed"), "x");
    lock.abandon();
  }
  CHECK(fs::exists(dir.path("written/checkpoint.heed")));
  CHECK_FALSE(fs::exists(dir.path("written/.lock")));
  // Released: the next run takes it.
  CHECK_NOTHROW(train::OutputDirLock(dir.path("written")));
}

TEST_CASE("output_dir: a stop by a signal before anything is saved leaves no directory",
          "[train][fast]") {
  TempDir dir;
  const std::string run = dir.path("run");
  CHECK(signal_ending_child([&] {
          io::remove_temp_files_on_signal();
          train::OutputDirLock lock(run);
          raise(SIGTERM);
        }) == SIGTERM);
  CHECK_FALSE(fs::exists(run));
}

TEST_CASE("output_dir: the run's files, and only their temporaries are stale", "[train][fast]") {
  int64_t step = 0;
  CHECK(train::is_run_file("checkpoint.heed", &step));
  CHECK(step == -1);
  CHECK(train::is_run_file("model.heed"));
  CHECK(train::is_run_file("model.step-120.heed", &step));
  CHECK(step == 120);
  CHECK(train::kept_model_name(120) == "model.step-120.heed");
  for (const char* other : {"model.step-.heed", "model.step-1x.heed", "model.step-3.heed.bak",
                            "notes.heed", "model.heed.tmp-AbC123", ".lock"}) {
    CHECK_FALSE(train::is_run_file(other));
  }
  TempDir dir;
  for (const char* name :
       {"checkpoint.heed.tmp-AbC123", "model.step-40.heed.tmp-x1Y2z3", "notes.tmp-keep",
        "corpus.txt.tmp-AbC123", "model.heed.tmp-short", "model.heed", "curves.svg.tmp-Q1w2E3"}) {
    write_file(dir.path(name), "x");
  }
  CHECK(train::remove_stale_temporaries(dir.root().string()) == 3);
  CHECK(dir.entries() == 4);
  CHECK(fs::exists(dir.path("notes.tmp-keep")));
  CHECK(fs::exists(dir.path("corpus.txt.tmp-AbC123")));
  CHECK(fs::exists(dir.path("model.heed.tmp-short")));
}
