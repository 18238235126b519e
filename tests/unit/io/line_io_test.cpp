#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "heed/common/error.h"
#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"
#include "heed/io/stream_pipeline.h"
#include "support/child.h"
#include "support/files.h"
#include "support/temp_dir.h"

using namespace heed;

using test::read_file;
using test::write_file;

TEST_CASE("line_reader: CRLF, NUL bytes, missing final newline, empty lines", "[io][fast]") {
  test::TempDir dir;
  std::string path = dir.path("in.txt");
  write_file(path, std::string("a\r\n\nb\0c\nlast", 12));
  io::LineReader reader(path);
  std::string line;
  REQUIRE(reader.next(line));
  CHECK(line == "a");
  REQUIRE(reader.next(line));
  CHECK(line.empty());
  REQUIRE(reader.next(line));
  CHECK(line == std::string("b\0c", 3));
  REQUIRE(reader.next(line));
  CHECK(line == "last");
  CHECK(reader.line_number() == 4);
  CHECK_FALSE(reader.next(line));
  CHECK(io::count_lines(path) == 4);
}

TEST_CASE("line_reader: a missing file is a FileError naming it", "[io][fast]") {
  try {
    io::LineReader reader("/nonexistent/heed.txt");
    FAIL("no exception");
  } catch (const FileError& e) {
    CHECK(std::string(e.what()).find("/nonexistent/heed.txt") != std::string::npos);
  }
}

TEST_CASE("read_whole_file: exact bytes of small and multi-block files; errors name the file",
          "[io][fast]") {
  test::TempDir dir;
  const std::string small(std::string("x\0y\n", 4)), large(200000, 'z');
  CHECK(io::read_whole_file(write_file(dir.path("small"), small)) == small);
  CHECK(io::read_whole_file(write_file(dir.path("large"), large + small)) == large + small);
  CHECK(io::read_whole_file(write_file(dir.path("empty"), "")).empty());
  CHECK_THROWS_WITH(io::read_whole_file("/nonexistent/heed.bin"),
                    Catch::Contains("/nonexistent/heed.bin"));
  CHECK_THROWS_AS(io::read_whole_file(dir.path("")), FileError);  // a directory
}

TEST_CASE("line_writer: commit renames atomically; no commit leaves nothing", "[io][fast]") {
  test::TempDir dir;
  std::string path = dir.path("out.txt");
  write_file(path, "old\n");
  {
    io::LineWriter writer(path);
    writer.write_line("new");
    CHECK(read_file(path) == "old\n");  // the target is untouched until commit
  }
  CHECK(read_file(path) == "old\n");
  CHECK(dir.entries() == 1);  // the temporary file is gone
  {
    io::LineWriter writer(path);
    writer.write_line("new");
    writer.commit();
  }
  CHECK(read_file(path) == "new\n");
  CHECK(dir.entries() == 1);
}

TEST_CASE("line_writer: a target that is not a regular file is written, not replaced",
          "[io][fast]") {
  // Renaming a temporary file over a FIFO (or, as root, over /dev/null) would replace it.
  test::TempDir dir;
  const std::string fifo = dir.path("pipe");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // so the writer's open returns
  REQUIRE(reader >= 0);
  {
    io::LineWriter writer(fifo);
    writer.write_line("through the pipe");
    writer.commit();
  }
  char buffer[64] = {};
  CHECK(::read(reader, buffer, sizeof buffer - 1) == 17);
  CHECK(std::string(buffer) == "through the pipe\n");
  ::close(reader);
  struct stat after;
  REQUIRE(::stat(fifo.c_str(), &after) == 0);
  CHECK(S_ISFIFO(after.st_mode));
}

TEST_CASE("line_writer: a symbolic link is followed and the replaced file keeps its permissions",
          "[io][fast]") {
  test::TempDir dir;
  write_file(dir.path("target"), "old\n");
  ::chmod(dir.path("target").c_str(), 0640);
  ::mkdir(dir.path("sub").c_str(), 0755);
  REQUIRE(::symlink("../target", dir.path("sub/link").c_str()) == 0);
  REQUIRE(::symlink("sub/link", dir.path("chain").c_str()) == 0);
  io::write_file_atomically(dir.path("chain"), "new\n");
  CHECK(read_file(dir.path("target")) == "new\n");
  struct stat info {};
  REQUIRE(::lstat(dir.path("chain").c_str(), &info) == 0);
  CHECK(S_ISLNK(info.st_mode));  // still a link, not a file put in its place
  REQUIRE(::lstat(dir.path("sub/link").c_str(), &info) == 0);
  CHECK(S_ISLNK(info.st_mode));
  REQUIRE(::stat(dir.path("target").c_str(), &info) == 0);
  CHECK((info.st_mode & 07777) == 0640);
  // A link to a file that does not exist yet makes it.
  REQUIRE(::symlink("fresh", dir.path("dangling").c_str()) == 0);
  io::write_file_atomically(dir.path("dangling"), "made\n");
  CHECK(read_file(dir.path("fresh")) == "made\n");
  // A loop of links is a WriteError naming the path, not a hang.
  REQUIRE(::symlink("loop-b", dir.path("loop-a").c_str()) == 0);
  REQUIRE(::symlink("loop-a", dir.path("loop-b").c_str()) == 0);
  CHECK_THROWS_WITH(io::write_file_atomically(dir.path("loop-a"), "x"),
                    Catch::Contains("loop-a") && Catch::Contains("symbolic links"));
}

TEST_CASE("line_writer: unwritable directory and full disk are WriteErrors", "[io][fast]") {
  CHECK_THROWS_AS(io::LineWriter("/nonexistent-dir/x.txt"), WriteError);
  CHECK_THROWS_AS(io::check_writable("/nonexistent-dir/x.txt"), WriteError);
  if (access("/dev/full", W_OK) == 0) {
    // /dev/full fails every write with ENOSPC: write to it through a stdout-like writer.
    std::FILE* saved = stdout;
    std::FILE* full = std::fopen("/dev/full", "w");
    REQUIRE(full);
    stdout = full;
    bool threw = false;
    try {
      io::LineWriter writer("-");
      writer.write_line("x");
      writer.flush();
    } catch (const WriteError& e) {
      threw = std::string(e.what()).find("No space left") != std::string::npos;
    }
    stdout = saved;
    std::fclose(full);
    CHECK(threw);
  }
}

TEST_CASE("stream_pipeline: order preserved with several threads", "[io][fast]") {
  test::TempDir dir;
  std::string in = dir.path("in.txt"), out = dir.path("out.txt");
  std::string text;
  for (int i = 1; i <= 1000; ++i) text += std::to_string(i) + "\n";
  write_file(in, text);
  io::LineReader reader(in);
  io::LineWriter writer(out);
  io::PipelineOptions options;
  options.threads = 3;
  options.batch_lines = 64;
  long long n = io::process_lines(reader, writer, options,
                                  [](std::string_view line, long long number, std::string& o) {
                                    o = std::string(line) + "=" + std::to_string(number);
                                  });
  writer.commit();
  CHECK(n == 1000);
  std::string expected;
  for (int i = 1; i <= 1000; ++i) expected += std::to_string(i) + "=" + std::to_string(i) + "\n";
  CHECK(read_file(out) == expected);
}

TEST_CASE("stream_pipeline: fewer lines than threads", "[io][fast]") {
  test::TempDir dir;
  std::string in = dir.path("in.txt"), out = dir.path("out.txt");
  write_file(in, "only\n");
  io::LineReader reader(in);
  io::LineWriter writer(out);
  io::PipelineOptions options;
  options.threads = 4;
  io::process_lines(reader, writer, options,
                    [](std::string_view line, long long, std::string& o) { o = line; });
  writer.commit();
  CHECK(read_file(out) == "only\n");
}

TEST_CASE("stream_pipeline: the earliest error wins, earlier lines are written", "[io][fast]") {
  test::TempDir dir;
  std::string in = dir.path("in.txt"), out = dir.path("out.txt");
  write_file(in, "1\n2\nbad\n4\nbad\n");
  io::LineReader reader(in);
  io::LineWriter writer(out);
  io::PipelineOptions options;
  options.threads = 2;
  try {
    io::process_lines(reader, writer, options,
                      [](std::string_view line, long long number, std::string& o) {
                        if (line == "bad") throw DataError(at_line("in", number, "bad line"));
                        o = line;
                      });
    FAIL("no exception");
  } catch (const DataError& e) {
    CHECK(std::string(e.what()) == "in:3: bad line");
  }
  writer.commit();
  CHECK(read_file(out) == "1\n2\n");
}

TEST_CASE("line_reader: a leading byte order mark is dropped from the first line only",
          "[io][fast]") {
  const std::string bom = "\xEF\xBB\xBF";
  CHECK(io::without_bom(bom + "x") == "x");
  CHECK(io::without_bom(bom) == "");
  CHECK(io::without_bom("x" + bom) == "x" + bom);
  CHECK(io::without_bom("\xEF\xBB") == "\xEF\xBB");  // a cut BOM is not one
  test::TempDir dir;
  io::LineReader reader(write_file(dir.path("bom.txt"), bom + "Hello\r\n" + bom + "again\n"));
  std::string line;
  REQUIRE(reader.next(line));
  CHECK(line == "Hello");
  REQUIRE(reader.next(line));
  CHECK(line == bom + "again");  // inside the text it is a character (U+FEFF) like any other
  CHECK_FALSE(reader.next(line));
  io::LineReader only(write_file(dir.path("only.txt"), bom));
  REQUIRE(only.next(line));
  CHECK(line.empty());
  CHECK_FALSE(only.next(line));
}

TEST_CASE("line_writer: keep_partial leaves the target alone and keeps the lines in .partial",
          "[io][fast]") {
  test::TempDir dir;
  const std::string path = dir.path("out.txt"), partial = path + ".partial";
  write_file(path, "old\n");
  {
    io::LineWriter writer(path);
    writer.write_line("one");
    writer.write_line("two");
    CHECK(writer.lines() == 2);
    CHECK(writer.keep_partial(writer.lines()) ==
          "; the 2 lines before it are in '" + partial + "'");
  }
  CHECK(read_file(path) == "old\n");
  CHECK(read_file(partial) == "one\ntwo\n");
  CHECK(dir.entries() == 2);  // no temporary file
  {
    io::LineWriter writer(dir.path("new.txt"));
    writer.write_line("only");
    CHECK(writer.keep_partial(1) ==
          "; the line before it is in '" + dir.path("new.txt.partial") + "'");
  }
  CHECK(read_file(dir.path("new.txt.partial")) == "only\n");
  CHECK_FALSE(std::ifstream(dir.path("new.txt")).good());
  // Nothing done: nothing kept, and an older partial file (of an earlier run) goes.
  {
    io::LineWriter writer(path);
    CHECK(writer.keep_partial(0).empty());
  }
  CHECK_FALSE(std::ifstream(partial).good());
  CHECK(read_file(path) == "old\n");
  // A run that completes removes the partial file an earlier one left.
  write_file(partial, "stale\n");
  {
    io::LineWriter writer(path);
    writer.write_line("new");
    writer.commit();
  }
  CHECK(read_file(path) == "new\n");
  CHECK_FALSE(std::ifstream(partial).good());
  CHECK(dir.entries() == 2);  // out.txt and new.txt.partial
}

TEST_CASE("line_writer: SIGTERM removes the temporary file and ends the process by the signal",
          "[io][fast]") {
  test::TempDir dir;
  const std::string path = dir.path("out.txt");
  write_file(path, "old\n");
  CHECK(test::signal_ending_child([&] {
          io::remove_temp_files_on_signal();
          io::LineWriter writer(path);
          writer.write_line("half");
          writer.flush();
          raise(SIGTERM);
        }) == SIGTERM);
  CHECK(read_file(path) == "old\n");
  CHECK(dir.entries() == 1);  // the temporary file is gone
}

TEST_CASE("line_writer: side files only beside a regular file or a new one", "[io][fast]") {
  test::TempDir dir;
  CHECK(io::side_file_path("-", ".checkpoint").empty());
  CHECK(io::side_file_path("/dev/full", ".checkpoint").empty());
  CHECK(io::side_file_path("/dev/null", ".partial").empty());
  REQUIRE(::mkfifo(dir.path("fifo").c_str(), 0644) == 0);
  CHECK(io::side_file_path(dir.path("fifo"), ".checkpoint").empty());
  CHECK(io::side_file_path(dir.path("new.tsv"), ".checkpoint") == dir.path("new.tsv.checkpoint"));
  write_file(dir.path("old.tsv"), "x\n");
  CHECK(io::side_file_path(dir.path("old.tsv"), ".partial") == dir.path("old.tsv.partial"));
}

TEST_CASE("line_writer: the temporaries it makes are told by their name", "[io][fast]") {
  test::TempDir dir;
  const std::string path = dir.path("out.txt");
  io::LineWriter writer(path);
  writer.write_line("x");
  for (const auto& entry : std::filesystem::directory_iterator(dir.root())) {
    CHECK(io::temporary_file_target(entry.path().filename().string()) == "out.txt");
  }
  CHECK(io::temporary_file_target("model.heed.tmp-AbC123") == "model.heed");
  for (const char* other : {"notes.tmp-keep", "model.heed.tmp-AbC12", "model.heed.tmp-AbC1234",
                            "model.heed.tmp-AbC-12", ".tmp-AbC123", "model.heed"}) {
    CHECK(io::temporary_file_target(other).empty());
  }
}

TEST_CASE(
    "line_writer: a stop by a signal removes what RemovedOnStop names, an empty directory "
    "after the files",
    "[io][fast]") {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path("empty-after"));
  std::filesystem::create_directories(dir.path("kept"));
  write_file(dir.path("empty-after/lock"), "1\n");
  write_file(dir.path("kept/data"), "x\n");
  write_file(dir.path("unregistered"), "x\n");
  using Kind = io::RemovedOnStop::Kind;
  CHECK(test::signal_ending_child([&] {
          io::remove_temp_files_on_signal();
          const io::RemovedOnStop dir1(dir.path("empty-after"), Kind::kEmptyDirectory);
          const io::RemovedOnStop lock(dir.path("empty-after/lock"), Kind::kFile);
          const io::RemovedOnStop dir2(dir.path("kept"), Kind::kEmptyDirectory);
          { const io::RemovedOnStop gone(dir.path("unregistered"), Kind::kFile); }
          raise(SIGINT);
        }) == SIGINT);
  CHECK_FALSE(std::filesystem::exists(dir.path("empty-after")));
  CHECK(read_file(dir.path("kept/data")) == "x\n");
  CHECK(read_file(dir.path("unregistered")) == "x\n");
}
