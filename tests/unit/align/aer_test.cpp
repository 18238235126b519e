#include "heed/align/aer.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "heed/common/error.h"
#include "heed/io/line_reader.h"

using namespace heed;
using align::Alignment;

TEST_CASE("alignment: Pharaoh and talp formats", "[align][fast]") {
  Alignment a = align::parse_pharaoh("2-1 0-0  1-2 0-0", "a.txt", 3);
  CHECK(align::to_pharaoh(a) == "0-0 1-2 2-1");
  CHECK(align::parse_pharaoh("", "a.txt", 1).empty());
  CHECK_THROWS_WITH(align::parse_pharaoh("0-0 1:2", "a.txt", 7),
                    Catch::StartsWith("a.txt:7: expected Pharaoh"));
  CHECK_THROWS_AS(align::parse_pharaoh("0p1", "a.txt", 1), DataError);
  align::GoldAlignment g = align::parse_talp("1-1 2p3 3-2", "gold", 1);
  CHECK(align::to_pharaoh(g.sure) == "0-0 2-1");
  CHECK(align::to_pharaoh(g.possible) == "0-0 1-2 2-1");
  CHECK_THROWS_WITH(align::parse_talp("0-1", "gold", 2), Catch::Contains("gold:2:"));
  CHECK(align::to_pharaoh(align::transpose(g).possible) == "0-0 1-2 2-1");
  CHECK(align::to_pharaoh(align::transpose(align::parse_pharaoh("0-1 0-2", "x", 1))) == "1-0 2-0");
}

TEST_CASE("aer: hand-computed counts", "[align][fast]") {
  // S = {0-0, 2-1}, P = S ∪ {1-2}; A = {0-0, 1-2, 1-1}.
  align::GoldAlignment gold = align::parse_talp("1-1 2p3 3-2", "gold", 1);
  Alignment predicted = align::parse_pharaoh("0-0 1-2 1-1", "hyp", 1);
  align::AerCounts c = align::aer_counts(predicted, gold);
  CHECK(c.predicted == 3);
  CHECK(c.sure == 2);
  CHECK(c.hit_sure == 1);
  CHECK(c.hit_possible == 2);
  CHECK(c.precision() == Approx(2.0 / 3));
  CHECK(c.recall() == Approx(0.5));
  CHECK(c.aer() == Approx(1.0 - 3.0 / 5));
  // Micro-averaging sums counts first.
  align::AerCounts total = c;
  total += align::aer_counts(gold.sure, gold);  // a perfect sentence
  CHECK(total.aer() == Approx(1.0 - (3.0 + 4.0) / (5.0 + 4.0)));
  CHECK(align::aer_counts({}, {}).aer() == 0.0);
}

TEST_CASE("alignment: the shared gold sets parse with their documented link counts",
          "[align][slow][shared-data]") {
  namespace fs = std::filesystem;
  const fs::path root = HEED_SHARED_DATA_DIR;
  if (!fs::exists(root)) {
    WARN("SKIPPED: " << root.string() << " not found");
    return;
  }
  struct Case {
    const char* file;
    long long sure, possible_only, sentences;
  };
  // Counts from ../shared/data/README.md (possible_only = P links that are not sure).
  for (const Case& k : {Case{"rwth-deen-gold/alignmentDeEn.talp", 9613, 921, 508},
                        Case{"hansards-naacl2003-en-fr/test.talp", 4038, 13400, 447},
                        Case{"wpt03-roen-gold/roen.gold", 6198, 0, 248}}) {
    io::LineReader reader((root / k.file).string());
    std::string line;
    long long sure = 0, possible = 0, sentences = 0;
    while (reader.next(line)) {
      if (line.find_first_not_of(' ') == std::string::npos) continue;  // RWTH's empty last line
      auto gold = align::parse_talp(line, k.file, reader.line_number());
      sure += static_cast<long long>(gold.sure.size());
      possible += static_cast<long long>(gold.possible.size());
      ++sentences;
      CHECK(align::aer_counts(gold.sure, gold).aer() == 0.0);
    }
    INFO(k.file);
    CHECK(sentences == k.sentences);
    CHECK(sure == k.sure);
    CHECK(possible - sure == k.possible_only);
  }
}

TEST_CASE("aer: micro-averaged over sentences of NAACL gold", "[align][fast]") {
  // Gold (1-based NAACL; sentence 2 has no links):
  //   1: S {0-0 1-1}, P-only {1-2}  ->  P = {0-0 1-1 1-2}
  //   3: S {0-1},     P-only {1-0}  ->  P = {0-1 1-0}
  const auto gold = align::parse_naacl("1 1 1 S\n1 2 2 S\n1 2 3 P\n3 1 2 S\n3 2 1 P\n", "g", 3);
  // Test (zero-based Pharaoh), per sentence |A|, |A∩S|, |A∩P|:
  //   1: {0-0 1-2 2-2}  3, 1 (0-0), 2 (0-0 1-2)
  //   2: {0-0 1-1}      2, 0, 0
  //   3: {0-1 1-0}      2, 1 (0-1), 2
  const std::vector<std::string> test = {"0-0 1-2 2-2", "0-0 1-1", "0-1 1-0"};
  align::AerCounts total;
  for (size_t k = 0; k < test.size(); ++k) {
    total += align::aer_counts(align::parse_pharaoh(test[k], "t", long(k) + 1), gold[k]);
  }
  // |A| = 7, |S| = 3, |P| = 5, |A∩S| = 2, |A∩P| = 4.
  CHECK(total.predicted == 7);
  CHECK(total.sure == 3);
  CHECK(total.possible == 5);
  CHECK(total.hit_sure == 2);
  CHECK(total.hit_possible == 4);
  CHECK(total.precision() == Approx(4.0 / 7));             // 57.14 %
  CHECK(total.recall() == Approx(2.0 / 3));                // 66.67 %
  CHECK(total.aer() == Approx(1.0 - (2.0 + 4.0) / 10.0));  // 40.00 %
  // Not the mean of the sentences' AERs: (1 - 3/5) + (1 - 0/2) + (1 - 3/3) over 3 = 46.67 %.
}
