#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "heed/common/error.h"
#include "heed/model/tokenizer_record.h"
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

TEST_CASE("TrainConfig::validate: --bpe-dropout needs codes and builds its own vocabularies",
          "[train][fast]") {
  Fixture f;
  f.config.bpe_dropout = 0.1f;
  CHECK_THROWS_WITH(f.config.validate(), Catch::Matchers::Contains("--bpe-dropout needs --bpe"));
  model::record_tokenizer({text::TokenizerOptions{}, "#version: 0.2\na b\n"}, f.config.extra);
  CHECK_NOTHROW(f.config.validate());
  for (float p : {1.f, -0.1f, 1.5f}) {
    train::TrainConfig c = f.config;
    c.bpe_dropout = p;
    CHECK_THROWS_WITH(c.validate(), Catch::Matchers::Contains("--bpe-dropout must be in [0, 1)"));
  }
  train::TrainConfig with_files = f.config;
  with_files.src_vocab_file = with_files.train_src;
  with_files.tgt_vocab_file = with_files.train_tgt;
  CHECK_THROWS_WITH(with_files.validate(), Catch::Matchers::Contains("--src-vocab"));
  for (const char* option : {"vocab-size", "vocab-min-count"}) {
    train::TrainConfig c = f.config;
    c.given.insert(option);
    CHECK_THROWS_WITH(c.validate(), Catch::Matchers::StartsWith(std::string("--") + option));
    CHECK_THROWS_AS(c.validate(), ConfigError);
  }
  // Without dropout the given sizes apply as always.
  train::TrainConfig plain = f.config;
  plain.bpe_dropout = 0.f;
  plain.given.insert("vocab-size");
  CHECK_NOTHROW(plain.validate());
}
