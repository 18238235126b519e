#include "heed/align/ibm2.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "heed/common/error.h"

using namespace heed;
using align::Ibm2;
using align::Ibm2Options;
using align::WordCorpus;

namespace {

WordCorpus corpus_of(const std::vector<std::pair<std::string, std::string>>& pairs) {
  WordCorpus corpus;
  for (const auto& [source, target] : pairs) corpus.add(source, target);
  return corpus;
}

// t(f | e) by words; e "" is the null word.
double t(const Ibm2& model, const WordCorpus& corpus, const std::string& e, const std::string& f) {
  return model.translation_probability(e.empty() ? -1 : corpus.source_id(e), corpus.target_id(f));
}

std::string pharaoh(const std::vector<align::Alignment>& alignments) {
  std::string text;
  for (const auto& links : alignments) text += align::to_pharaoh(links) + "\n";
  return text;
}

// Sum over source positions by brute force, to check the closed forms.
double brute_normalizer(int j, int m, int n, double tension) {
  double z = 0;
  for (int i = 1; i <= n; ++i) z += std::exp(-tension * std::fabs(double(i) / n - double(j) / m));
  return z;
}

double brute_expected_feature(int j, int m, int n, double tension) {
  double sum = 0;
  for (int i = 1; i <= n; ++i) {
    const double h = -std::fabs(double(i) / n - double(j) / m);
    sum += h * std::exp(tension * h);
  }
  return sum / brute_normalizer(j, m, n, tension);
}

// fast_align's d log Z by brute force: the numerator of brute_expected_feature over the sum of
// exp(−λ |k/m − j/n|) over k = 1..m for j <= n, and for j > n over every k >= 1, until the terms
// vanish (fast_align's unsigned count of the terms past j·m/n wraps around to about 2^32).
double brute_fast_align_feature(int j, int m, int n, double tension) {
  const double moment =
      brute_expected_feature(j, m, n, tension) * brute_normalizer(j, m, n, tension);
  const int last = j <= n ? m : static_cast<int>(m * (double(j) / n + 800 / tension)) + 1;
  double z = 0;
  for (int k = 1; k <= last; ++k)
    z += std::exp(-tension * std::fabs(double(k) / m - double(j) / n));
  return moment / z;
}

// A random corpus where target word k of a pair tends to translate source word k, for the
// tests that need more pairs than one chunk of work. With uneven_lengths a target may lose its
// last word or gain up to two.
WordCorpus random_corpus(int pairs, std::uint32_t seed, bool reversed_order = false,
                         bool uneven_lengths = false) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> length(1, 9), word(0, 40), noise(0, 9), change(-1, 2);
  WordCorpus corpus;
  for (int k = 0; k < pairs; ++k) {
    const int n = length(rng);
    std::vector<std::string> source, target;
    for (int i = 0; i < n; ++i) {
      const int w = word(rng);
      source.push_back("s" + std::to_string(w));
      target.push_back(noise(rng) == 0 ? "t" + std::to_string(word(rng)) : "t" + std::to_string(w));
    }
    if (reversed_order) std::reverse(target.begin(), target.end());
    if (uneven_lengths) {
      const int words = change(rng);
      if (words < 0 && target.size() > 1) target.pop_back();
      for (int w = 0; w < words; ++w) target.push_back("t" + std::to_string(word(rng)));
    }
    std::string s, t;
    for (const auto& w : source) s += w + " ";
    for (const auto& w : target) t += w + " ";
    corpus.add(s, t);
  }
  return corpus;
}

}  // namespace

TEST_CASE("ibm2: Model 1 EM on two pairs, worked by hand", "[align][fast]") {
  // No null word, uniform positions: p(a_j = i) = 1/n.
  const WordCorpus corpus = corpus_of({{"a b", "x y"}, {"a", "x"}});
  Ibm2Options options;
  options.null_word = false;
  Ibm2 model(corpus, options, 1);

  // Update 1 from uniform t: in pair 1 each of x, y goes half to a and half to b; in pair 2,
  // x goes wholly to a. Counts a: x 0.5 + 1, y 0.5; b: x 0.5, y 0.5.
  align::Ibm2Iteration first = model.em_step();
  CHECK(first.target_tokens == 3);
  // Its likelihood is the uniform model's, t(f | e) = 1 / |V_f| = 1/2 for each of the 3 words
  // (not 1, which logged perplexity=1 for the first iteration).
  CHECK(first.log_likelihood == Approx(3 * std::log(0.5)).epsilon(1e-12));
  CHECK(t(model, corpus, "a", "x") == Approx(0.75));
  CHECK(t(model, corpus, "a", "y") == Approx(0.25));
  CHECK(t(model, corpus, "b", "x") == Approx(0.5));
  CHECK(t(model, corpus, "b", "y") == Approx(0.5));

  // Update 2: in pair 1, x splits 0.75 : 0.5 = 0.6 : 0.4 between a and b, y 0.25 : 0.5 =
  // 1/3 : 2/3; pair 2 as before. Counts a: x 1.6, y 1/3 (total 29/15); b: x 0.4, y 2/3 (16/15).
  // The likelihood is that of the model after update 1: x 0.5·0.75 + 0.5·0.5, y 0.5·0.25 +
  // 0.5·0.5, and x in pair 2 0.75.
  align::Ibm2Iteration second = model.em_step();
  CHECK(second.log_likelihood ==
        Approx(std::log(0.625) + std::log(0.375) + std::log(0.75)).epsilon(1e-12));
  CHECK(t(model, corpus, "a", "x") == Approx(24.0 / 29));
  CHECK(t(model, corpus, "a", "y") == Approx(5.0 / 29));
  CHECK(t(model, corpus, "b", "x") == Approx(3.0 / 8));
  CHECK(t(model, corpus, "b", "y") == Approx(5.0 / 8));
  CHECK(t(model, corpus, "b", "nothing") == 0);

  // Viterbi: x → a (24/29 > 3/8), y → b (5/8 > 5/29).
  CHECK(pharaoh(model.align()) == "0-0 1-1\n0-0\n");
}

TEST_CASE("ibm2: the lexical table is t after EM, by word, best first, above the floor",
          "[align][fast]") {
  // The corpus and updates of the hand-worked case above: after two updates t(x | a) = 24/29,
  // t(y | a) = 5/29, t(x | b) = 3/8, t(y | b) = 5/8.
  const WordCorpus corpus = corpus_of({{"b a", "y x"}, {"a", "x"}});
  Ibm2Options options;
  options.null_word = false;
  options.iterations = 3;
  Ibm2 model(corpus, options, 1);
  model.train();
  const auto all = model.lexical_table(0);
  REQUIRE(all.size() == 4);
  const std::vector<std::pair<std::string, std::string>> order = {
      {"a", "x"}, {"a", "y"}, {"b", "y"}, {"b", "x"}};
  for (size_t k = 0; k < all.size(); ++k) {
    INFO("entry " << k);
    CHECK(all[k].from == order[k].first);
    CHECK(all[k].to == order[k].second);
    CHECK(all[k].probability == t(model, corpus, all[k].from, all[k].to));
  }
  CHECK(all[0].probability == Approx(24.0 / 29));
  CHECK(all[3].probability == Approx(3.0 / 8));

  const auto floored = model.lexical_table(0.2);  // drops t(y | a) = 5/29
  REQUIRE(floored.size() == 3);
  CHECK(floored[1].from == "b");

  // With reverse the table is t(source | target): keyed by the target words.
  options.reverse = true;
  Ibm2 reverse(corpus, options, 1);
  reverse.train();
  const auto swapped = reverse.lexical_table(0);
  REQUIRE(swapped.size() == 4);
  CHECK(swapped[0].from == "x");
  CHECK(swapped[0].probability ==
        reverse.translation_probability(corpus.target_id("x"), corpus.source_id(swapped[0].to)));
  CHECK(swapped[3].from == "y");
}

TEST_CASE("ibm2: the null word takes its uniform share", "[align][fast]") {
  // p(a_j = i) = 1/(n + 1) over the null word and the n words.
  const WordCorpus corpus = corpus_of({{"a", "x"}, {"a b", "y"}});
  Ibm2 model(corpus, Ibm2Options{}, 1);
  // x: null 1/2, a 1/2; y: null, a and b 1/3 each. Null row: x 1/2, y 1/3.
  align::Ibm2Iteration stats = model.em_step();
  CHECK(stats.null_posterior == Approx((0.5 + 1.0 / 3) / 2));
  CHECK(t(model, corpus, "", "x") == Approx(0.6));
  CHECK(t(model, corpus, "", "y") == Approx(0.4));
  CHECK(t(model, corpus, "a", "x") == Approx(0.6));
  CHECK(t(model, corpus, "b", "y") == Approx(1.0));
}

TEST_CASE("ibm2: the Dirichlet prior gives exp(psi(c + alpha) - psi(total))", "[align][fast]") {
  // Counts a: x 1, y 1. With alpha 1: exp(ψ(2) − ψ(4)) = exp(−(1/2 + 1/3)).
  const WordCorpus corpus = corpus_of({{"a", "x"}, {"a", "y"}});
  Ibm2Options options;
  options.null_word = false;
  options.variational_bayes = true;
  options.alpha = 1;
  Ibm2 model(corpus, options, 1);
  model.em_step();
  CHECK(t(model, corpus, "a", "x") == Approx(std::exp(-5.0 / 6)).epsilon(1e-10));
  CHECK(t(model, corpus, "a", "y") == Approx(std::exp(-5.0 / 6)).epsilon(1e-10));
}

TEST_CASE("ibm2: closed-form diagonal normaliser and feature against brute force",
          "[align][fast]") {
  for (double tension : {0.1, 1.0, 4.0, 14.0}) {
    for (int m = 1; m <= 12; ++m) {
      for (int n = 1; n <= 12; ++n) {
        for (int j = 1; j <= m; ++j) {
          INFO("j=" << j << " m=" << m << " n=" << n << " tension=" << tension);
          CHECK(align::diagonal_normalizer(j, m, n, tension) ==
                Approx(brute_normalizer(j, m, n, tension)).epsilon(1e-10));
          CHECK(align::diagonal_expected_feature(j, m, n, tension) ==
                Approx(brute_expected_feature(j, m, n, tension)).epsilon(1e-8).margin(1e-12));
        }
      }
    }
  }
  // The feature is d log Z / dλ.
  const double step = 1e-5;
  const double numeric = (std::log(align::diagonal_normalizer(3, 7, 5, 4 + step)) -
                          std::log(align::diagonal_normalizer(3, 7, 5, 4 - step))) /
                         (2 * step);
  CHECK(align::diagonal_expected_feature(3, 7, 5, 4) == Approx(numeric).epsilon(1e-6));
  CHECK_THROWS_AS(align::diagonal_normalizer(0, 3, 3, 4), ConfigError);
  CHECK_THROWS_AS(align::diagonal_normalizer(1, 3, 3, 0), ConfigError);
}

TEST_CASE("ibm2: fast_align's d log Z against brute force", "[align][fast]") {
  for (double tension : {0.1, 1.0, 4.0, 14.0}) {
    for (int m = 1; m <= 9; ++m) {
      for (int n = 1; n <= 9; ++n) {
        for (int j = 1; j <= m; ++j) {
          INFO("j=" << j << " m=" << m << " n=" << n << " tension=" << tension);
          CHECK(align::fast_align_expected_feature(j, m, n, tension) ==
                Approx(brute_fast_align_feature(j, m, n, tension)).epsilon(1e-9).margin(1e-12));
        }
      }
    }
  }
  // Equal lengths swap to themselves: then it is the exact d log Z.
  CHECK(align::fast_align_expected_feature(2, 5, 5, 4) ==
        Approx(align::diagonal_expected_feature(2, 5, 5, 4)).epsilon(1e-12));
  CHECK_THROWS_AS(align::fast_align_expected_feature(4, 3, 3, 4), ConfigError);
}

TEST_CASE("ibm2: fast-align tension gradient takes fast_align's step, by brute force",
          "[align][fast]") {
  // The second update's tension: eight steps of 20 × (posterior feature − model feature), each
  // per target word, where fast_align takes the posterior feature at position j − 1 (links to
  // real words only) and the model feature as its d log Z at every target position. The
  // corpus has pairs with m > n, so j > n occurs.
  const WordCorpus corpus = random_corpus(20, 1, false, /*uneven_lengths=*/true);
  Ibm2Options options;
  options.favor_diagonal = true;
  options.optimize_tension = true;
  options.tension_gradient = align::TensionGradient::fast_align;
  Ibm2 model(corpus, options, 1);
  model.em_step();

  const double start = options.diagonal_tension, p0 = options.null_probability;
  double posterior_feature = 0, tokens = 0;
  bool longer_target = false, shorter_target = false;
  for (size_t k = 0; k < corpus.size(); ++k) {
    const int n = corpus.source_length(k), m = corpus.target_length(k);
    longer_target = longer_target || m > n;
    shorter_target = shorter_target || m < n;
    for (int j = 1; j <= m; ++j) {
      const long f = corpus.target(k)[j - 1];
      std::vector<double> joint(n + 1);
      joint[0] = p0 * model.translation_probability(-1, f);
      double sum = joint[0];
      for (int i = 1; i <= n; ++i) {
        joint[i] = (1 - p0) * std::exp(-start * std::fabs(double(i) / n - double(j) / m)) /
                   brute_normalizer(j, m, n, start) *
                   model.translation_probability(corpus.source(k)[i - 1], f);
        sum += joint[i];
      }
      for (int i = 1; i <= n; ++i) {
        posterior_feature += joint[i] / sum * -std::fabs(double(i) / n - double(j - 1) / m);
      }
      tokens += 1;
    }
  }
  REQUIRE(longer_target);
  REQUIRE(shorter_target);
  posterior_feature /= tokens;
  double tension = start;
  for (int step = 0; step < 8; ++step) {
    double model_feature = 0;
    for (size_t k = 0; k < corpus.size(); ++k) {
      const int n = corpus.source_length(k), m = corpus.target_length(k);
      for (int j = 1; j <= m; ++j) model_feature += brute_fast_align_feature(j, m, n, tension);
    }
    tension = std::clamp(tension + 20 * (posterior_feature - model_feature / tokens), 0.1, 14.0);
  }
  REQUIRE(tension > 0.1);  // not at a bound, where any gradient would give the same
  REQUIRE(tension < 14);
  CHECK(model.em_step().tension == Approx(tension).epsilon(1e-9));

  // The exact gradient takes another way on the same data.
  options.tension_gradient = align::TensionGradient::exact;
  Ibm2 exact(corpus, options, 1);
  exact.em_step();
  CHECK(std::fabs(exact.em_step().tension - tension) > 1);
}

TEST_CASE("ibm2: one update with the diagonal prior, worked by hand", "[align][fast]") {
  // m = n = 2, λ = 4, p0 = 0.08. From uniform t the posteriors are the prior: for x (j = 1)
  // h = 0 for a and −1/2 for b, so a gets (1 − p0) / (1 + e^−2) and b (1 − p0) e^−2 / (1 + e^−2);
  // for y (j = 2) the other way round; the null word p0 each time.
  const WordCorpus corpus = corpus_of({{"a b", "x y"}});
  Ibm2Options options;
  options.favor_diagonal = true;
  Ibm2 model(corpus, options, 1);
  align::Ibm2Iteration stats = model.em_step();
  const double near = 1 / (1 + std::exp(-2.0)), far = std::exp(-2.0) / (1 + std::exp(-2.0));
  CHECK(stats.null_posterior == Approx(0.08));
  CHECK(stats.tension == 4);  // not optimized
  CHECK(t(model, corpus, "a", "x") == Approx(near));
  CHECK(t(model, corpus, "a", "y") == Approx(far));
  CHECK(t(model, corpus, "b", "y") == Approx(near));
  CHECK(t(model, corpus, "", "x") == Approx(0.5));
  CHECK(pharaoh(model.align()) == "0-0 1-1\n");
}

TEST_CASE("ibm2: the tension follows the data's closeness to the diagonal", "[align][fast]") {
  Ibm2Options options;
  options.favor_diagonal = true;
  options.optimize_tension = true;
  for (bool reversed_order : {false, true}) {
    const WordCorpus corpus = random_corpus(600, 7, reversed_order);
    Ibm2 model(corpus, options, 2);
    CHECK(model.em_step().tension == 4);  // the first update only gathers counts
    for (int k = 0; k < 3; ++k) model.em_step();
    // Monotone translations pull λ up; reversed word order pushes it down to its floor.
    if (reversed_order) {
      CHECK(model.tension() < 1);
    } else {
      CHECK(model.tension() > 6);
    }
  }
}

TEST_CASE("ibm2: the same results for any number of threads", "[align][fast]") {
  const WordCorpus corpus = random_corpus(3000, 11);
  Ibm2Options options;
  options.favor_diagonal = true;
  options.optimize_tension = true;
  options.variational_bayes = true;
  options.tension_gradient =
      GENERATE(align::TensionGradient::exact, align::TensionGradient::fast_align);
  std::string first;
  double tension = 0;
  std::vector<double> probabilities;
  for (int threads : {1, 2, 3, 8}) {
    Ibm2 model(corpus, options, threads);
    for (int k = 0; k < 4; ++k) model.em_step();
    const std::string links = pharaoh(model.align());
    std::vector<double> ts;
    for (long e = -1; e < 20; ++e) {
      for (long f = 0; f < 20; ++f) ts.push_back(model.translation_probability(e, f));
    }
    if (threads == 1) {
      first = links;
      tension = model.tension();
      probabilities = ts;
    } else {
      INFO("threads=" << threads);
      CHECK(links == first);
      CHECK(model.tension() == tension);  // bit for bit
      CHECK(ts == probabilities);
    }
  }
}

TEST_CASE("ibm2: a restored state continues as the uninterrupted run, bit for bit",
          "[align][fast]") {
  const WordCorpus corpus = random_corpus(2000, 5);
  Ibm2Options options;
  options.favor_diagonal = true;
  options.optimize_tension = true;
  options.variational_bayes = true;
  options.iterations = 6;
  Ibm2 straight(corpus, options, 2);
  std::vector<double> straight_likelihood;
  CHECK(straight.train([&](int, const align::Ibm2Iteration& s) {
    straight_likelihood.push_back(s.log_likelihood);
  }));
  CHECK(straight.updates_done() == 5);

  // Two updates, then a stop requested in the third: the model is as after the second.
  Ibm2 first(corpus, options, 1);  // one thread: polls is counted by one
  std::vector<double> likelihood;
  int polls = 0;
  const auto record = [&](int, const align::Ibm2Iteration& s) {
    likelihood.push_back(s.log_likelihood);
  };
  CHECK_FALSE(first.train(record, [&] { return first.updates_done() == 2 && ++polls > 3; }));
  CHECK(polls > 3);
  CHECK(first.updates_done() == 2);
  Ibm2 after_two(corpus, options, 1);
  after_two.train({}, [&] { return after_two.updates_done() == 2; });
  CHECK(first.state().t == after_two.state().t);
  CHECK(first.tension() == after_two.tension());

  // A new model of the same corpus and options, given that state, finishes as the straight run.
  Ibm2 resumed(corpus, options, 3);
  resumed.restore(first.state());
  CHECK(resumed.train(record));
  CHECK(likelihood == straight_likelihood);
  CHECK(resumed.tension() == straight.tension());
  CHECK(resumed.state().t == straight.state().t);
  CHECK(pharaoh(resumed.align()) == pharaoh(straight.align()));

  // Another corpus' table, or more updates than the options make, is refused.
  Ibm2 other(random_corpus(200, 6), options, 1);
  CHECK_THROWS_AS(other.restore(first.state()), FormatError);
  align::Ibm2State too_many = straight.state();
  too_many.updates = 6;
  CHECK_THROWS_AS(resumed.restore(too_many), FormatError);
  align::Ibm2State bad = straight.state();
  bad.tension = std::nan("");
  CHECK_THROWS_AS(resumed.restore(bad), FormatError);
  bad = straight.state();
  bad.t[3] = -1;
  CHECK_THROWS_AS(resumed.restore(bad), FormatError);
}

TEST_CASE("ibm2: the fingerprint tells corpora apart", "[align][fast]") {
  CHECK(random_corpus(50, 1).fingerprint() == random_corpus(50, 1).fingerprint());
  CHECK(random_corpus(50, 1).fingerprint() != random_corpus(50, 2).fingerprint());
  CHECK(random_corpus(50, 1).fingerprint() != random_corpus(49, 1).fingerprint());
  // Words moved across the separator, or between pairs, change it.
  CHECK(corpus_of({{"a b", "c"}}).fingerprint() != corpus_of({{"a", "b c"}}).fingerprint());
  CHECK(corpus_of({{"a", "b"}, {"c", "d"}}).fingerprint() !=
        corpus_of({{"a c", "b d"}}).fingerprint());
}

TEST_CASE("ibm2: reverse is the forward model on the swapped corpus, transposed", "[align][fast]") {
  const WordCorpus corpus = random_corpus(500, 3);
  WordCorpus swapped;
  for (size_t k = 0; k < corpus.size(); ++k) {
    std::string s, t;
    for (int i = 0; i < corpus.source_length(k); ++i) {
      s += "s" + std::to_string(corpus.source(k)[i]) + " ";
    }
    for (int j = 0; j < corpus.target_length(k); ++j) {
      t += "t" + std::to_string(corpus.target(k)[j]) + " ";
    }
    swapped.add(t, s);
  }
  Ibm2Options options;
  options.favor_diagonal = true;
  options.optimize_tension = true;
  options.variational_bayes = true;
  Ibm2Options reverse = options;
  reverse.reverse = true;
  const auto backward = align::train_and_align(corpus, reverse, 2);
  const auto forward_on_swapped = align::train_and_align(swapped, options, 2);
  REQUIRE(backward.size() == forward_on_swapped.size());
  bool some_links = false;
  for (size_t k = 0; k < backward.size(); ++k) {
    CHECK(backward[k] == align::transpose(forward_on_swapped[k]));
    some_links = some_links || !backward[k].empty();
  }
  CHECK(some_links);
  // Links are source-target in both directions: every source index is below the source length.
  for (size_t k = 0; k < backward.size(); ++k) {
    for (const align::Link& l : backward[k]) {
      CHECK(l.source < corpus.source_length(k));
      CHECK(l.target < corpus.target_length(k));
    }
  }
}

TEST_CASE("ibm2: a pair with an empty side takes no part and gets no links", "[align][fast]") {
  const WordCorpus corpus = corpus_of({{"a b", "x y"}, {"", "x"}, {"a", ""}, {"a", "x"}});
  for (bool reverse : {false, true}) {
    Ibm2Options options;
    options.reverse = reverse;
    options.null_word = false;
    Ibm2 model(corpus, options, 2);
    CHECK(model.em_step().target_tokens == 3);
    const auto links = model.align();
    CHECK(links[1].empty());
    CHECK(links[2].empty());
    CHECK(links[3] == align::Alignment{{0, 0}});
  }
}

TEST_CASE("ibm2: options out of range are refused", "[align][fast]") {
  const WordCorpus corpus = corpus_of({{"a", "x"}});
  Ibm2Options options;
  options.null_probability = 1;
  CHECK_THROWS_AS(Ibm2(corpus, options, 1), ConfigError);
  options = {};
  options.iterations = 0;
  CHECK_THROWS_AS(Ibm2(corpus, options, 1), ConfigError);
  options = {};
  options.alpha = 0;
  CHECK_THROWS_AS(Ibm2(corpus, options, 1), ConfigError);
}
