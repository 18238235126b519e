#include "heed/io/batch_reader.h"

#include <unistd.h>

#include <catch2/catch.hpp>

#include "heed/common/error.h"
#include "support/files.h"
#include "support/temp_dir.h"

using namespace heed;

TEST_CASE("batch_reader: a file comes in full batches; CRLF and a last line without newline",
          "[io][fast]") {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "line " + std::to_string(i) + (i % 2 ? "\r\n" : "\n");
  text += "tail";
  io::BatchReader reader(test::write_file(dir.path("in"), text));
  std::vector<std::string> batch;
  REQUIRE(reader.next_batch(batch, 300));
  CHECK(batch.size() == 300);
  CHECK(batch[1] == "line 1");
  size_t total = batch.size();
  std::string last;
  while (reader.next_batch(batch, 300)) {
    total += batch.size();
    last = batch.back();
  }
  CHECK(total == 1001);
  CHECK(last == "tail");
  CHECK(reader.lines_read() == 1001);
  CHECK_THROWS_AS(io::BatchReader(dir.path("absent")), FileError);
}

TEST_CASE("batch_reader: a co-process gets each line at once while input stays open",
          "[io][fast]") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const int saved = dup(STDIN_FILENO);
  REQUIRE(dup2(fds[0], STDIN_FILENO) >= 0);
  close(fds[0]);
  {
    io::BatchReader reader("-");
    std::vector<std::string> batch;
    REQUIRE(write(fds[1], "one\n", 4) == 4);
    // The writer has not closed the pipe: the batch must come back with the one line.
    REQUIRE(reader.next_batch(batch, 64));
    CHECK(batch == std::vector<std::string>{"one"});
    REQUIRE(write(fds[1], "two\nthree\npart", 14) == 14);
    REQUIRE(reader.next_batch(batch, 64));
    CHECK(batch == std::vector<std::string>{"two", "three"});
    REQUIRE(write(fds[1], "ial\n", 4) == 4);
    close(fds[1]);
    REQUIRE(reader.next_batch(batch, 64));
    CHECK(batch == std::vector<std::string>{"partial"});
    CHECK_FALSE(reader.next_batch(batch, 64));
  }
  dup2(saved, STDIN_FILENO);
  close(saved);
}

TEST_CASE("batch_reader: a leading byte order mark is dropped from the first line only",
          "[io][fast]") {
  test::TempDir dir;
  const std::string bom = "\xEF\xBB\xBF";
  io::BatchReader reader(test::write_file(dir.path("in"), bom + "a\r\n" + bom + "b\n"));
  std::vector<std::string> batch;
  REQUIRE(reader.next_batch(batch, 10));
  CHECK(batch == std::vector<std::string>{"a", bom + "b"});
}
