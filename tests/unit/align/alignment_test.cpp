#include "heed/align/alignment.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "heed/align/aer.h"
#include "heed/common/error.h"
#include "heed/io/line_reader.h"

using namespace heed;
using align::GoldAlignment;

TEST_CASE("alignment: talp gold one-based or zero-based", "[align][fast]") {
  // The same links written 1-based and 0-based read the same.
  const GoldAlignment one = align::parse_talp("1-1 2p3", "gold", 1, /*one_based=*/true);
  const GoldAlignment zero = align::parse_talp("0-0 1p2", "gold", 1, /*one_based=*/false);
  CHECK(align::to_pharaoh(one.sure) == "0-0");
  CHECK(align::to_pharaoh(one.possible) == "0-0 1-2");
  CHECK(one.sure == zero.sure);
  CHECK(one.possible == zero.possible);
  // Position 0 does not exist when counting from 1.
  CHECK_THROWS_WITH(align::parse_talp("1-1 0-2", "gold", 4, true),
                    Catch::StartsWith("gold:4:") && Catch::Contains("1-based"));
  CHECK(align::to_pharaoh(align::parse_talp("0-2", "gold", 4, false).sure) == "0-2");
}

TEST_CASE("alignment: talp files, one line per sentence", "[align][fast]") {
  // Blank lines are sentences without links; CRLF is accepted; the last line needs no newline.
  const auto gold = align::parse_talp_lines("1-1 2p2\r\n\n3-1", "g.talp", true);
  REQUIRE(gold.size() == 3);
  CHECK(align::to_pharaoh(gold[0].possible) == "0-0 1-1");
  CHECK(gold[1].possible.empty());
  CHECK(align::to_pharaoh(gold[2].sure) == "2-0");
  CHECK(align::parse_talp_lines("", "g.talp").empty());
  CHECK_THROWS_WITH(align::parse_talp_lines("1-1\n1-x\n", "g.talp"),
                    Catch::StartsWith("g.talp:2:") && Catch::Contains("'1-x'"));
}

TEST_CASE("alignment: NAACL 2003 gold", "[align][fast]") {
  // Sentence 2 has no links and is absent; sentence 3 comes before 1; zero-padded numbers; a
  // confidence column after S|P or alone; no S|P means sure; position 0 is NULL and dropped.
  const std::string text =
      "0003 2 1 P\n"
      "0001 1 1 S\n"
      "0001 2 3 P 0.8\n"
      "\n"
      "0001 3 2 0.5\n"
      "0003 1 1\n"
      "0003 0 2 S\n";
  const auto gold = align::parse_naacl(text, "g.wa", 4);
  REQUIRE(gold.size() == 4);
  CHECK(align::to_pharaoh(gold[0].sure) == "0-0 2-1");
  CHECK(align::to_pharaoh(gold[0].possible) == "0-0 1-2 2-1");
  CHECK(gold[1].possible.empty());
  CHECK(align::to_pharaoh(gold[2].sure) == "0-0");
  CHECK(align::to_pharaoh(gold[2].possible) == "0-0 1-0");
  CHECK(gold[3].possible.empty());  // sentence 4: no line at all

  // Malformed lines and out-of-range sentence numbers name file and line.
  for (const std::string bad : {"1 1", "1 1 1 X", "1 1 1 S 0.5 7", "1 a 1 S", "0 1 1 S",
                                "1 1 1 S x", "1 -1 2 S", "1 1 1 S ."}) {
    INFO(bad);
    CHECK_THROWS_WITH(align::parse_naacl("1 1 1 S\n" + bad + "\n", "g.wa", 5),
                      Catch::StartsWith("g.wa:2: expected NAACL gold"));
  }
  CHECK_THROWS_AS(align::parse_naacl("6 1 1 S", "g.wa", 5), DataError);
  CHECK_THROWS_WITH(align::parse_naacl("1 1 1 S\n6 1 1 S", "g.wa", 5),
                    Catch::StartsWith("g.wa:2: sentence 6 is beyond the 5 sentences"));
}

TEST_CASE("alignment: gold formats told apart by their first line", "[align][fast]") {
  CHECK(align::detect_gold_format("0001 1 1 S\n") == align::GoldFormat::kNaacl);
  CHECK(align::detect_gold_format("\n  \n1 1 1\n") == align::GoldFormat::kNaacl);
  CHECK(align::detect_gold_format("1-1 2p2\n") == align::GoldFormat::kTalp);
  CHECK(align::detect_gold_format("1p1\n") == align::GoldFormat::kTalp);
  CHECK(align::detect_gold_format("") == align::GoldFormat::kTalp);
}

TEST_CASE("alignment: the Hansards NAACL gold equals its talp copy", "[align][slow][shared-data]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(HEED_SHARED_DATA_DIR) / "hansards-naacl2003-en-fr";
  if (!fs::exists(dir)) {
    WARN("SKIPPED: " << dir.string() << " not found");
    return;
  }
  const std::string naacl_text = io::read_whole_file((dir / "test.wa.nonullalign").string());
  const std::string talp_text = io::read_whole_file((dir / "test.talp").string());
  CHECK(align::detect_gold_format(naacl_text) == align::GoldFormat::kNaacl);
  CHECK(align::detect_gold_format(talp_text) == align::GoldFormat::kTalp);
  const auto naacl = align::parse_naacl(naacl_text, "test.wa.nonullalign", 447);
  const auto talp = align::parse_talp_lines(talp_text, "test.talp", true);
  REQUIRE(naacl.size() == 447);
  REQUIRE(talp.size() == 447);
  long long sure = 0, possible = 0;
  for (size_t k = 0; k < naacl.size(); ++k) {
    INFO("sentence " << k + 1);
    CHECK(naacl[k].sure == talp[k].sure);
    CHECK(naacl[k].possible == talp[k].possible);
    sure += static_cast<long long>(naacl[k].sure.size());
    possible += static_cast<long long>(naacl[k].possible.size());
  }
  // ../shared/data/README.md: 4,038 S links + 13,400 P links.
  CHECK(sure == 4038);
  CHECK(possible == 4038 + 13400);
}
