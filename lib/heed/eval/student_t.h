// Student's t distribution and Welch's two-sample t-test, for comparing systems over their runs
// (seeds) alone: with two or three runs a side, the seeds' part of a difference's uncertainty
// is what limits a verdict, and a t interval says so with the right (few) degrees of freedom,
// where a bootstrap over few runs cannot. The distribution comes from the regularized incomplete
// beta function, evaluated by its continued fraction (Numerical Recipes §6.4, Cephes' incbet),
// so heed needs no statistics library.
#pragma once

#include <vector>

#include "heed/eval/bootstrap.h"

namespace heed::eval {

// The regularized incomplete beta function I_x(a, b) for a, b > 0 and 0 ≤ x ≤ 1 (InternalError
// otherwise), to about 1e-14 relative.
double regularized_incomplete_beta(double a, double b, double x);

// Student's t distribution with df > 0 degrees of freedom (any real df, as Welch's test needs):
// P(T ≤ t), and its inverse for 0 < p < 1 (±infinity for a quantile beyond ±1e150, where t²
// no longer fits a double: tails below about 1e-150 with df ≥ 1). Both tails are computed
// directly, so small tail probabilities keep their relative precision.
double student_t_cdf(double t, double df);
double student_t_quantile(double p, double df);

// Welch's two-sample t-test (Welch 1947) of other's mean against baseline's: the difference of
// the means, its standard error √(s_a²/n_a + s_b²/n_b) and the Welch–Satterthwaite degrees of
// freedom, the 95% interval difference ± t(0.975, df)·se and the two-sided p-value of t =
// difference/se (scipy.stats.ttest_ind(other, baseline, equal_var=False)). Not defined (defined
// false, the figures 0, p 1) with fewer than 2 values on a side, or when neither side varies
// (se = 0: t and df are 0/0).
struct WelchTest {
  bool defined = false;
  double difference = 0;  // mean(other) − mean(baseline)
  double se = 0;
  double df = 0;
  Interval ci95;
  double p = 1;
};
WelchTest welch_test(const std::vector<double>& baseline, const std::vector<double>& other);

}  // namespace heed::eval
