#include "heed/train/metrics.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>

#include "heed/common/error.h"
#include "support/files.h"
#include "support/temp_dir.h"

using namespace heed;

namespace {

train::MetricsRow row(int64_t step) {
  train::MetricsRow r;
  r.step = step;
  r.epoch = 1;
  r.loss = 2;
  r.valid_ppl = r.valid_bleu = std::nan("");
  return r;
}

}  // namespace

TEST_CASE("metrics: a header once, then a row each, appended", "[train][fast]") {
  test::TempDir dir;
  const std::string path = dir.path("m.tsv");
  {
    train::MetricsWriter writer(path);
    writer.write(row(1));
    writer.write(row(2));
    CHECK(writer.failure().empty());
  }
  train::MetricsWriter again(path);
  again.write(row(3));
  const std::string text = test::read_file(path);
  CHECK(text.rfind("step\tepoch\t", 0) == 0);
  CHECK(text.find("\n1\t1\t2.00000\t") != std::string::npos);
  CHECK(text.find("\n3\t1\t") != std::string::npos);
  size_t headers = 0;
  for (size_t at = text.find("step\t"); at != std::string::npos; at = text.find("step\t", at + 1)) {
    ++headers;
  }
  CHECK(headers == 1);
}

TEST_CASE("metrics: a row that cannot be written is a failure to report, not an exception",
          "[train][fast]") {
  train::MetricsWriter writer("/dev/full");
  CHECK_NOTHROW(writer.write(row(1)));
  CHECK_NOTHROW(writer.write(row(2)));
  CHECK(writer.failure() == "cannot write the metrics file '/dev/full': No space left on device");
  test::TempDir dir;
  CHECK_THROWS_AS(train::MetricsWriter(dir.path("no/such/dir/m.tsv")), WriteError);
}

TEST_CASE("metrics: a file that cannot be written is refused when it is opened, saying why",
          "[train][fast]") {
  // heed-train opens it first thing in training (TrainConfig::validate does not look at it).
  test::TempDir dir;
  const std::string folder = dir.path("metrics");
  std::filesystem::create_directories(folder);
  CHECK_THROWS_WITH(train::MetricsWriter(folder),
                    folder + ": cannot write the metrics file (is a directory)");
  const std::string lost = dir.path("missing-dir/m.tsv");
  CHECK_THROWS_WITH(train::MetricsWriter(lost),
                    Catch::Matchers::StartsWith("cannot write '" + lost + "': directory '"));
  CHECK_NOTHROW(train::MetricsWriter(dir.path("m.tsv")));
}
