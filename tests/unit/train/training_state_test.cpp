#include "heed/train/training_state.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "heed/common/error.h"

using namespace heed;
using train::TrainingState;

TEST_CASE("training state: named fields round-trip, infinity and the RNG included",
          "[train][fast]") {
  TrainingState s;
  s.step = 1234;
  s.epoch = 3;
  s.next_batch = 17;
  s.elapsed = 98.25;
  s.rng = "1 2 3 18446744073709551615";
  s.lr_current = 0.00025f;
  s.lr_best = 12.5;
  s.lr_bad = 2;
  s.best_bleu = 31.5;
  s.bad_validations = 1;
  s.world_size = 4;
  s.best_step = 900;
  const std::string text = s.to_text();
  CHECK(text.rfind("format 2\n", 0) == 0);
  CHECK(text.find("\nworld_size 4\n") != std::string::npos);
  const TrainingState r = TrainingState::from_text(text, "ck");
  CHECK(r.step == 1234);
  CHECK(r.epoch == 3);
  CHECK(r.next_batch == 17);
  CHECK(r.elapsed == 98.25);
  CHECK(r.rng == s.rng);
  CHECK(r.lr_current == s.lr_current);
  CHECK(r.lr_best == 12.5);
  CHECK(r.lr_bad == 2);
  CHECK(std::isinf(r.best_ppl));
  CHECK(r.best_bleu == 31.5);
  CHECK(r.bad_validations == 1);
  CHECK(r.world_size == 4);
  CHECK(r.best_step == 900);
  // Checkpoints written before best_step existed resume with 0 (none known).
  std::string older = text;
  older.erase(older.find("best_step 900\n"), std::string("best_step 900\n").size());
  CHECK(TrainingState::from_text(older, "ck").best_step == 0);
}

TEST_CASE("training state: checkpoints from before the named fields still resume",
          "[train][fast]") {
  const TrainingState r = TrainingState::from_text(
      "40 1 7 12.5 0.0010000000474974513 3.25 1 inf 0 2\n5 6 7", "old.heed");
  CHECK(r.step == 40);
  CHECK(r.epoch == 1);
  CHECK(r.next_batch == 7);
  CHECK(r.elapsed == 12.5);
  CHECK(r.lr_current == 0.001f);
  CHECK(r.lr_best == 3.25);
  CHECK(r.lr_bad == 1);
  CHECK(std::isinf(r.best_ppl));
  CHECK(r.bad_validations == 2);
  CHECK(r.rng == "5 6 7");
  CHECK(r.world_size == 1);
}

TEST_CASE("training state: malformed, incomplete or newer state is refused with the file name",
          "[train][fast]") {
  CHECK_THROWS_AS(TrainingState::from_text("40 1 x", "a.heed"), FormatError);
  CHECK_THROWS_WITH(TrainingState::from_text("format 2\nstep 3\n", "b.heed"),
                    Catch::Contains("b.heed") && Catch::Contains("no 'epoch'"));
  CHECK_THROWS_WITH(TrainingState::from_text("format 3\nstep 3\n", "c.heed"),
                    Catch::Contains("c.heed: trainer state format 3, newer"));
  std::string bad = TrainingState().to_text();
  bad.replace(bad.find("step 0"), 6, "step x");
  CHECK_THROWS_WITH(TrainingState::from_text(bad, "d.heed"), Catch::Contains("step 'x'"));
}

TEST_CASE("training state: the kept models' steps round-trip; older checkpoints say they lack them",
          "[train][fast]") {
  TrainingState s;
  s.rng = "1 2";
  s.kept_steps = {30, 40, 50};
  const std::string text = s.to_text();
  CHECK(text.find("\nkept 3 30 40 50\n") != std::string::npos);
  const TrainingState r = TrainingState::from_text(text, "ck");
  CHECK(r.kept_steps == std::vector<int64_t>{30, 40, 50});
  CHECK(r.kept_steps_recorded);
  s.kept_steps.clear();
  CHECK(TrainingState::from_text(s.to_text(), "ck").kept_steps.empty());
  CHECK(TrainingState::from_text(s.to_text(), "ck").kept_steps_recorded);
  std::string older = text;
  older.erase(older.find("kept 3 30 40 50\n"), std::string("kept 3 30 40 50\n").size());
  CHECK_FALSE(TrainingState::from_text(older, "ck").kept_steps_recorded);
  for (const char* bad : {"kept 2 30\n", "kept 1 30 40\n", "kept 1 x\n"}) {
    std::string edited = older;
    edited.insert(edited.find("rng "), bad);
    CHECK_THROWS_WITH(TrainingState::from_text(edited, "ck"),
                      Catch::Contains("ck: malformed trainer state (kept"));
  }
}

TEST_CASE("training state: the curves' rows round-trip, NaN included; older checkpoints have none",
          "[train][fast]") {
  TrainingState s;
  s.rng = "1 2";
  train::CurvePoint logged;
  logged.step = 10;
  logged.loss = 5.25;
  logged.lr = 0.001;
  train::CurvePoint validated = logged;
  validated.step = 20;
  validated.valid_ppl = 120.5;
  validated.valid_bleu = 3.75;
  s.curve = {logged, validated};
  const TrainingState r = TrainingState::from_text(s.to_text(), "ck");
  REQUIRE(r.curve.size() == 2);
  CHECK(r.curve[0].step == 10);
  CHECK(r.curve[0].loss == 5.25);
  CHECK(std::isnan(r.curve[0].valid_ppl));
  CHECK(r.curve[1].valid_ppl == 120.5);
  CHECK(r.curve[1].valid_bleu == 3.75);
  std::string older = s.to_text();
  const size_t at = older.find("curve ");
  older.erase(at, older.find('\n', at) + 1 - at);
  CHECK(TrainingState::from_text(older, "ck").curve.empty());
  std::string bad = older;
  bad.insert(bad.find("rng "), "curve 2 10 1 1 nan nan\n");
  CHECK_THROWS_WITH(TrainingState::from_text(bad, "ck"),
                    Catch::Contains("ck: malformed trainer state (curve"));
}
