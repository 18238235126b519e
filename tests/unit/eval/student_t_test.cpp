#include "heed/eval/student_t.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "heed/common/error.h"

using namespace heed;

// Reference values from Debian's scipy 1.10.1 (python3-scipy): scipy.special.betainc,
// scipy.stats.t.ppf and .cdf, and scipy.stats.ttest_ind(other, baseline, equal_var=False) with
// its interval difference ± t.ppf(0.975, df)·se (this scipy's ttest_ind has no
// confidence_interval() yet); printed with %.17g. Relative tolerances, all far inside 1e-6:
// 1e-11 for the incomplete beta function and the distribution function, tails included (a
// small tail probability keeps its relative precision; at large a, b the cancellation of ln Γ
// terms near 2600 costs both heed and scipy about 1e-12: I_0.999(500, 0.5) is
// 0.31731044730971715 by 40-digit mpmath, scipy 0.31731044730955799, heed 0.31731044730997593);
// 1e-8 where scipy's quantile enters, since t.ppf (cdflib's stdtrit) is itself good to about
// 2e-9 only (df 30, p 0.6: scipy 0.2556053644420514, mpmath 0.2556053649519127, heed
// 0.25560536495191211). The closed forms at df 1 and 2 check the quantile to 1e-13.
namespace {

bool close(double actual, double expected, double relative) {
  return std::fabs(actual - expected) <= relative * std::fabs(expected);
}

}  // namespace

TEST_CASE("student t: the regularized incomplete beta function", "[eval][fast]") {
  struct Case {
    double a, b, x, expected;
  };
  for (const Case& c : std::vector<Case>{{0.5, 0.5, 0.3, 0.36901011956554541},
                                         {2, 3, 0.4, 0.52479999999999993},
                                         {500, 0.5, 0.999, 0.31731044730955799},
                                         {0.75, 0.5, 0.01, 0.017633364431854818},
                                         {5, 5, 0.5, 0.50000000000000011},
                                         {1.85, 0.5, 0.9, 0.55895141866948039}}) {
    INFO("a = " << c.a << ", b = " << c.b << ", x = " << c.x);
    CHECK(close(eval::regularized_incomplete_beta(c.a, c.b, c.x), c.expected, 1e-11));
  }
  CHECK(eval::regularized_incomplete_beta(2, 3, 0) == 0);
  CHECK(eval::regularized_incomplete_beta(2, 3, 1) == 1);
  CHECK_THROWS_AS(eval::regularized_incomplete_beta(0, 1, 0.5), InternalError);
  CHECK_THROWS_AS(eval::regularized_incomplete_beta(1, 1, 1.5), InternalError);
}

TEST_CASE("student t: quantiles as scipy.stats.t.ppf", "[eval][fast]") {
  struct Case {
    double df, p, expected;
  };
  for (const Case& c :
       std::vector<Case>{{1, 0.975, 12.706204736432095},   {1, 0.95, 6.3137515148009324},
                         {1, 0.995, 63.656741162873992},   {1, 0.6, 0.32491969623407446},
                         {1, 1e-06, -318309.88618278794},  {1.5, 0.975, 6.0166631079904471},
                         {1.5, 0.95, 3.7051808201600038},  {1.5, 0.995, 17.820310514461323},
                         {1.5, 0.6, 0.30074539256979615},  {1.5, 1e-06, -5219.4693247090127},
                         {2, 0.975, 4.3026527299112747},   {2, 0.95, 2.9199855803555161},
                         {2, 0.995, 9.9248432009180707},   {2, 0.6, 0.2886751346880066},
                         {2, 1e-06, -707.10572052593511},  {3.7, 0.975, 2.8675207071912086},
                         {3.7, 0.95, 2.1824938048932987},  {3.7, 0.995, 4.8692522534286713},
                         {3.7, 0.6, 0.2721644642885101},   {3.7, 1e-06, -51.640050274443091},
                         {4, 0.975, 2.7764451051977987},   {4, 0.95, 2.1318467813362898},
                         {4, 0.995, 4.6040948714158967},   {4, 0.6, 0.27072229470594927},
                         {4, 1e-06, -41.577854150453575},  {8, 0.975, 2.3060041350333704},
                         {8, 0.95, 1.8595480375228424},    {8, 0.995, 3.3553873313333957},
                         {8, 0.6, 0.26192109674883074},    {8, 1e-06, -12.109834665879768},
                         {30, 0.975, 2.0422724563012373},  {30, 0.95, 1.6972608943617378},
                         {30, 0.995, 2.7499956535670305},  {30, 0.6, 0.2556053644420514},
                         {30, 1e-06, -5.8711171204188988}, {1000, 0.975, 1.9623390808264074},
                         {1000, 0.95, 1.6463788172854639}, {1000, 0.995, 2.5807546980659422},
                         {1000, 0.6, 0.25341451583949864}, {1000, 1e-06, -4.7816086204550281}}) {
    INFO("df = " << c.df << ", p = " << c.p);
    CHECK(close(eval::student_t_quantile(c.p, c.df), c.expected, 1e-8));
    // Symmetric about 0.
    CHECK(close(eval::student_t_quantile(1 - c.p, c.df), -c.expected, 1e-8));
  }
  CHECK(eval::student_t_quantile(0.5, 3) == 0);
  // Closed forms: df = 1 is Cauchy, tan(π(p − ½)); df = 2: (2p − 1)/√(2p(1 − p)).
  for (double p : {0.1, 0.6, 0.975, 0.995}) {
    CHECK(
        close(eval::student_t_quantile(p, 1), std::tan(3.14159265358979323846 * (p - 0.5)), 1e-13));
    CHECK(close(eval::student_t_quantile(p, 2), (2 * p - 1) / std::sqrt(2 * p * (1 - p)), 1e-13));
  }
  // Beyond ±1e150: infinite, with the sign of the tail.
  CHECK(eval::student_t_quantile(1e-300, 0.01) == -std::numeric_limits<double>::infinity());
  CHECK_THROWS_AS(eval::student_t_quantile(0, 3), InternalError);
  CHECK_THROWS_AS(eval::student_t_quantile(1, 3), InternalError);
  CHECK_THROWS_AS(eval::student_t_quantile(0.5, 0), InternalError);
}

TEST_CASE("student t: the distribution function as scipy.stats.t.cdf", "[eval][fast]") {
  struct Case {
    double df, t, expected;
  };
  for (const Case& c : std::vector<Case>{{1, -3.2, 0.09641124797922955},
                                         {1, -0.5, 0.35241638234956679},
                                         {1, 0.0, 0.5},
                                         {1, 0.7, 0.69440011221421472},
                                         {1, 2.5, 0.87888105840915665},
                                         {1, 40.0, 0.99204391008797421},
                                         {1, -40.0, 0.007956089912025812},
                                         {1.5, -3.2, 0.061190596931440536},
                                         {1.5, -0.5, 0.34028355533497001},
                                         {1.5, 0.7, 0.71178087955865665},
                                         {1.5, 2.5, 0.91509674869265201},
                                         {1.5, 40.0, 0.99851018780453438},
                                         {1.5, -40.0, 0.0014898121954656229},
                                         {2, -3.2, 0.042670439619976429},
                                         {2, -0.5, 0.33333333333333337},
                                         {2, 0.7, 0.72180348768356728},
                                         {2, 2.5, 0.9351941398892446},
                                         {2, 40.0, 0.99968779266390762},
                                         {2, -40.0, 0.0003122073360923703},
                                         {3.7, -3.2, 0.018370080354780004},
                                         {3.7, -0.5, 0.32266781665996602},
                                         {3.7, 0.7, 0.73728697302841206},
                                         {3.7, 2.5, 0.96408898854408664},
                                         {3.7, 40.0, 0.9999974306875089},
                                         {3.7, -40.0, 2.5693124910707444e-06},
                                         {4, -3.2, 0.01645040530046948},
                                         {4, -0.5, 0.32166498159093165},
                                         {4, 0.7, 0.73874991720327499},
                                         {4, 2.5, 0.96661672759400596},
                                         {4, 40.0, 0.99999883299183867},
                                         {4, -40.0, 1.1670081613006347e-06},
                                         {8, -3.2, 0.0063061747218887713},
                                         {8, -0.5, 0.31526803777848822},
                                         {8, 0.7, 0.74811447399072772},
                                         {8, 2.5, 0.98152898114318798},
                                         {8, 40.0, 0.99999999991607147},
                                         {8, -40.0, 8.392859439572887e-11},
                                         {30, -3.2, 0.0016193008559765687},
                                         {30, -0.5, 0.31036150244256366},
                                         {30, 0.7, 0.75533977825016418},
                                         {30, 2.5, 0.99094217546596663},
                                         {30, -40.0, 6.8630225972031808e-28},
                                         {1000, -3.2, 0.00070876915215877629},
                                         {1000, -0.5, 0.30859254041693751},
                                         {1000, 0.7, 0.7579549430036987},
                                         {1000, 2.5, 0.99371071609945461},
                                         {1000, -40.0, 5.239426077586736e-210},
                                         {1000, 0.0, 0.5}}) {
    INFO("df = " << c.df << ", t = " << c.t);
    CHECK(close(eval::student_t_cdf(c.t, c.df), c.expected, 1e-11));
  }
  CHECK(eval::student_t_cdf(std::numeric_limits<double>::infinity(), 3) == 1);
  CHECK(eval::student_t_cdf(-std::numeric_limits<double>::infinity(), 3) == 0);
  CHECK(std::isnan(eval::student_t_cdf(std::nan(""), 3)));
  // The quantile inverts it.
  for (double df : {1.0, 2.5, 7.0, 200.0}) {
    for (double p : {1e-9, 0.01, 0.3, 0.8, 0.999}) {
      CHECK(close(eval::student_t_cdf(eval::student_t_quantile(p, df), df), p, 1e-11));
    }
  }
}

TEST_CASE("welch: differences, intervals and p-values as scipy's ttest_ind", "[eval][fast]") {
  struct Case {
    std::vector<double> baseline, other;
    double difference, df, low, high, p;
  };
  for (const Case& c : std::vector<Case>{
           // 5 runs a side.
           {{36.68, 36.36, 36.78, 37.24, 36.80},
            {37.63, 37.18, 37.78, 37.69, 37.52},
            0.7879999999999967,
            7.3551909941223954,
            0.3776124650261462,
            1.1983875349738473,
            0.0024835837236969905},
           // 2 against 2: the interval spans 0 although every run of one beats every run of
           // the other.
           {{36.68, 36.36},
            {37.63, 37.18},
            0.88500000000000512,
            1.8054065086991111,
            -0.43445661015264969,
            2.2044566101526599,
            0.097064238446410309},
           // 2 against 5, lower than the baseline.
           {{44.23, 44.50},
            {43.95, 44.12, 44.60, 44.30, 44.02},
            -0.16700000000000159,
            2.6723543890962174,
            -0.77587367817855368,
            0.4418736781785505,
            0.4256232607495537},
           // 2 against 3, the spread mostly on one side.
           {{50, 50.5},
            {75, 100, 80},
            34.75,
            2.0042834085329906,
            1.937592514243633,
            67.562407485756367,
            0.04493116385164881}}) {
    const eval::WelchTest w = eval::welch_test(c.baseline, c.other);
    INFO("difference " << w.difference << " df " << w.df << " [" << w.ci95.low << ", "
                       << w.ci95.high << "] p " << w.p);
    CHECK(w.defined);
    CHECK(close(w.difference, c.difference, 1e-12));
    CHECK(close(w.df, c.df, 1e-12));
    CHECK(close(w.ci95.low, c.low, 1e-8));
    CHECK(close(w.ci95.high, c.high, 1e-8));
    CHECK(close(w.p, c.p, 1e-11));
    // The other way round: the difference, the interval and t change sign, p stays.
    const eval::WelchTest back = eval::welch_test(c.other, c.baseline);
    CHECK(back.difference == -w.difference);
    CHECK(back.ci95.low == -w.ci95.high);
    CHECK(back.p == w.p);
  }
}

TEST_CASE("welch: not defined without two runs a side or any spread", "[eval][fast]") {
  CHECK_FALSE(eval::welch_test({1, 2}, {3}).defined);
  CHECK_FALSE(eval::welch_test({1}, {2, 3}).defined);
  CHECK_FALSE(eval::welch_test({}, {}).defined);
  // Neither side varies: t = 0/0 or d/0, df = 0/0.
  const eval::WelchTest flat = eval::welch_test({40, 40}, {50, 50, 50});
  CHECK_FALSE(flat.defined);
  CHECK(flat.p == 1);
  // One side varies: df = n − 1 of that side.
  const eval::WelchTest one = eval::welch_test({40, 40}, {49, 51});
  CHECK(one.defined);
  CHECK(one.df == Approx(1));
  CHECK(one.difference == 10);
  // Identical sides: difference 0, p = 1, an interval symmetric about 0.
  const eval::WelchTest same = eval::welch_test({1, 2, 4}, {1, 2, 4});
  CHECK(same.difference == 0);
  CHECK(same.p == 1);
  CHECK(same.ci95.low == -same.ci95.high);
}
