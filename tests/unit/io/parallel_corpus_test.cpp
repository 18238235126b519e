#include "heed/io/parallel_corpus.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "heed/common/error.h"
#include "support/files.h"
#include "support/temp_dir.h"

using namespace heed;

namespace {
std::string write(const test::TempDir& dir, const std::string& name, const std::string& text) {
  return test::write_file(dir.path(name), text);
}
}  // namespace

TEST_CASE("parallel corpus: two files, ' ||| ' and TAB lines", "[io][fast]") {
  test::TempDir dir;
  io::ParallelReader two(write(dir, "de", "hallo\nwelt\n"), write(dir, "en", "hello\nworld\n"));
  std::string s, t;
  REQUIRE(two.next(s, t));
  CHECK((s == "hallo" && t == "hello"));
  REQUIRE(two.next(s, t));
  CHECK_FALSE(two.next(s, t));
  io::ParallelReader one(write(dir, "both", "a b ||| c d\nx\ty\nno separator\n"));
  REQUIRE(one.next(s, t));
  CHECK((s == "a b" && t == "c d"));
  REQUIRE(one.next(s, t));
  CHECK((s == "x" && t == "y"));
  CHECK_THROWS_WITH(one.next(s, t), Catch::Contains("both:3: expected 'source ||| target'"));
}

TEST_CASE("parallel corpus: mismatched files are reported with their line counts", "[io][fast]") {
  test::TempDir dir;
  std::string de = write(dir, "de", "a\nb\nc\n"), en = write(dir, "en", "a\nb\n");
  CHECK_THROWS_WITH(io::check_line_counts(de, en),
                    Catch::Contains("has 3 lines but") && Catch::Contains("has 2"));
  io::ParallelReader r(de, en);
  std::string s, t;
  r.next(s, t);
  r.next(s, t);
  CHECK_THROWS_WITH(r.next(s, t),
                    Catch::Contains("has 2 lines but") && Catch::Contains("not parallel"));
  CHECK_NOTHROW(io::check_line_counts(de, de));
}

TEST_CASE("parallel corpus: a byte order mark at the start of either file is dropped",
          "[io][fast]") {
  test::TempDir dir;
  const std::string bom = "\xEF\xBB\xBF";
  io::ParallelReader two(write(dir, "de", bom + "hallo\n"), write(dir, "en", bom + "hello\r\n"));
  std::string s, t;
  REQUIRE(two.next(s, t));
  CHECK((s == "hallo" && t == "hello"));
  io::ParallelReader one(write(dir, "both", bom + "a ||| b\n"));
  REQUIRE(one.next(s, t));
  CHECK((s == "a" && t == "b"));
}
