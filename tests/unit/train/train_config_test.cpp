#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "heed/common/error.h"
#include "heed/train/trainer.h"

using namespace heed;
namespace fs = std::filesystem;

namespace {

// A minimal valid configuration over two small files in a fresh directory.
struct Fixture {
  fs::path dir = fs::temp_directory_path() / ("heed-train-config-" + std::to_string(::getpid()));
  train::TrainConfig config;

  Fixture() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* name : {"src", "tgt"}) std::ofstream(dir / name) << "a b\nc d\n";
    config.train_src = (dir / "src").string();
    config.train_tgt = (dir / "tgt").string();
    config.output = (dir / "out").string();
    config.max_steps = 1;
  }
  ~Fixture() { fs::remove_all(dir); }
};

}  // namespace

TEST_CASE("TrainConfig::validate: a directory as input is named as one", "[train][fast]") {
  Fixture f;
  fs::create_directories(f.dir / "corpus");
  f.config.train_src = (f.dir / "corpus").string();
  CHECK_THROWS_WITH(f.config.validate(),
                    Catch::Matchers::Contains("corpus: cannot open (is a directory)"));
  CHECK_THROWS_AS(f.config.validate(), FileError);
  CHECK_FALSE(fs::exists(f.config.output));  // refused before the output directory is made
}

TEST_CASE("TrainConfig::validate: an unwritable metrics file is found before training",
          "[train][fast]") {
  Fixture f;
  fs::create_directories(f.dir / "metrics");
  f.config.metrics_file = (f.dir / "metrics").string();
  CHECK_THROWS_AS(f.config.validate(), WriteError);
  f.config.metrics_file = (f.dir / "missing-dir" / "m.tsv").string();
  CHECK_THROWS_AS(f.config.validate(), WriteError);
  f.config.metrics_file = (f.dir / "m.tsv").string();
  CHECK_NOTHROW(f.config.validate());
}
