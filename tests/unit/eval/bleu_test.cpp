#include "heed/eval/bleu.h"

#include <catch2/catch.hpp>

#include "heed/common/error.h"

using namespace heed;

TEST_CASE("bleu: 13a tokenization as sacreBLEU's tokenizer_13a", "[eval][fast]") {
  CHECK(eval::tokenize_13a("The dog bit the man.") == "The dog bit the man .");
  CHECK(eval::tokenize_13a("It wasn't surprising.") == "It wasn't surprising .");
  // Periods and commas stay inside numbers; a dash after a digit is split.
  CHECK(eval::tokenize_13a("1,000.5 and 3-4, ok") == "1,000.5 and 3 - 4 , ok");
  CHECK(eval::tokenize_13a("(a)[b]{c}\"d\"!?;:/@#$%&*+=<>^_`|~") ==
        "( a ) [ b ] { c } \" d \" ! ? ; : / @ # $ % & * + = < > ^ _ ` | ~");
  CHECK(eval::tokenize_13a("&quot;x&quot; &amp; &lt;y&gt;") == "\" x \" & < y >");
  CHECK(eval::tokenize_13a("a<skipped>b") == "ab");
  // Python's str.split(): NBSP, U+2009 and U+202F separate words; other text is untouched.
  CHECK(eval::tokenize_13a("a\xc2\xa0"
                           "b\xe2\x80\x89"
                           "c\xe2\x80\xaf"
                           "d") == "a b c d");
  CHECK(eval::tokenize_13a("«Déjà vu»") == "«Déjà vu»");
  CHECK(eval::tokenize_13a("end.") == "end .");
  CHECK(eval::tokenize_13a("  ").empty());
}

TEST_CASE("bleu: sacreBLEU's README example", "[eval][fast]") {
  // sacrebleu README: BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17
  // ref_len = 18)
  std::vector<std::string> sys = {"The dog bit the man.", "It wasn't surprising.",
                                  "The man had just bitten him."};
  std::vector<std::vector<std::string>> refs = {
      {"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
      {"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."}};
  eval::BleuScore s = eval::corpus_bleu(sys, refs);
  CHECK(s.format() ==
        "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)");
  CHECK(eval::bleu_signature({}, 2).rfind("nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:",
                                          0) == 0);
}

TEST_CASE("bleu: hand-computed scores", "[eval][fast]") {
  // 1-grams 5/6, 2-grams 3/5, 3-grams 1/4, 4-grams 0/3 → exp smoothing 100/(2·3); BP 1.
  eval::BleuScore s = eval::corpus_bleu({"the cat sat on the mat"}, {{"the cat is on the mat"}});
  CHECK(s.precisions[0] == Approx(500.0 / 6));
  CHECK(s.precisions[3] == Approx(100.0 / 6));
  CHECK(s.score == Approx(37.99178428257963));
  eval::BleuOptions none;
  none.smoothing = eval::BleuSmoothing::kNone;
  CHECK(eval::corpus_bleu({"the cat sat on the mat"}, {{"the cat is on the mat"}}, none).score ==
        0.0);
  // Sentence BLEU uses the effective order: 1-grams 2/2, 2-grams 1/1, BP exp(1 − 3/2).
  CHECK(eval::sentence_bleu("the cat", {"the cat sat"}).score == Approx(60.653065971263366));
  // Lowercasing (full Unicode) and an empty hypothesis.
  eval::BleuOptions lc;
  lc.lowercase = true;
  CHECK(eval::corpus_bleu({"ÉTÉ CHAUD ICI MAINTENANT"}, {{"été chaud ici maintenant"}}, lc).score ==
        Approx(100.0));
  CHECK(eval::corpus_bleu({""}, {{"a b c"}}).score == 0.0);
  CHECK_THROWS_AS(eval::corpus_bleu({"a", "b"}, {{"a"}}), DataError);
}

TEST_CASE("bleu: references prepared once, n-grams clipped by the highest count", "[eval][fast]") {
  // "the the the" against "the cat" and "the the dog": "the" occurs at most twice in a
  // reference, so 2 of 3 unigrams match; "the the" at most once (1 of 2 bigrams); the lengths
  // are 2 and 3, and 3 is the closest to the hypothesis's 3.
  const std::vector<std::string_view> refs = {"the cat", "the the dog"};
  const eval::BleuReferences prepared = eval::bleu_references(refs, {});
  const eval::BleuStats s = eval::segment_stats("the the the", prepared, {});
  CHECK(s.correct == std::array<long long, 4>{2, 1, 0, 0});
  CHECK(s.total == std::array<long long, 4>{3, 2, 1, 0});
  CHECK(s.hyp_len == 3);
  CHECK(s.ref_len == 3);
  // The prepared references serve every hypothesis as the unprepared ones do.
  for (const char* hyp : {"the cat", "dog", "", "the the dog the cat"}) {
    const eval::BleuStats a = eval::segment_stats(hyp, prepared, {});
    const eval::BleuStats b = eval::segment_stats(hyp, refs, {});
    CHECK(a.correct == b.correct);
    CHECK(a.total == b.total);
    CHECK(a.hyp_len == b.hyp_len);
    CHECK(a.ref_len == b.ref_len);
  }
  CHECK_THROWS_AS(eval::bleu_references({}, {}), InternalError);
}
