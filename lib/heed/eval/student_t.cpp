#include "heed/eval/student_t.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "heed/common/error.h"

namespace heed::eval {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kEpsilon = 1e-15;  // the continued fraction's and the quantile's stopping rule
constexpr double kTiny = 1e-300;    // Lentz's guard against a zero denominator
constexpr int kMaxIterations = 10000;
constexpr double kLargest = 1e150;  // the largest quantile returned: t² must fit a double

// ln Γ(x) for x > 0. glibc's std::lgamma writes the global signgam, and compare_runs may run on
// several threads at once (one per metric); lgamma_r writes only its argument.
double log_gamma(double x) {
#ifdef __GLIBC__
  int sign = 0;
  return ::lgamma_r(x, &sign);
#else
  return std::lgamma(x);
#endif
}

void check_df(double df) {
  if (!(df > 0) || !std::isfinite(df)) {
    throw InternalError("student t: degrees of freedom " + std::to_string(df) + " (need > 0)");
  }
}

// The continued fraction of I_x(a, b) · a·B(a, b) / (x^a (1 − x)^b), evaluated by the modified
// Lentz method (Numerical Recipes' betacf); it converges fast for x < (a + 1)/(a + b + 2).
double beta_continued_fraction(double a, double b, double x) {
  const auto guard = [](double v) { return std::fabs(v) < kTiny ? kTiny : v; };
  double c = 1, d = 1 / guard(1 - (a + b) * x / (a + 1));
  double h = d;
  for (int m = 1; m <= kMaxIterations; ++m) {
    const double m2 = 2.0 * m;
    // The even term d_2m = m(b − m)x / ((a + 2m − 1)(a + 2m)), then the odd term d_2m+1.
    double term = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
    d = 1 / guard(1 + term * d);
    c = guard(1 + term / c);
    h *= d * c;
    term = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
    d = 1 / guard(1 + term * d);
    c = guard(1 + term / c);
    h *= d * c;
    if (std::fabs(d * c - 1) < kEpsilon) return h;
  }
  throw InternalError("regularized_incomplete_beta: no convergence for a = " + std::to_string(a) +
                      ", b = " + std::to_string(b) + ", x = " + std::to_string(x));
}

// I_x(a, b) given x and y = 1 − x both (the caller may hold y more precisely than 1 − x): the
// continued fraction of I_x(a, b) or, where that converges slowly, of I_y(b, a) = 1 − I_x(a, b).
double incomplete_beta(double a, double b, double x, double y) {
  if (x <= 0) return 0;
  if (y <= 0) return 1;
  const double front =
      std::exp(log_gamma(a + b) - log_gamma(a) - log_gamma(b) + a * std::log(x) + b * std::log(y));
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
  return 1 - front * beta_continued_fraction(b, a, y) / b;
}

// P(T ≤ −|t|) = I_x(df/2, 1/2) / 2 with x = df/(df + t²), computed directly (no 1 − …).
double lower_tail(double t, double df) {
  const double ratio = t * t / df;  // x = 1/(1 + ratio), 1 − x = 1/(1 + 1/ratio)
  return 0.5 * incomplete_beta(df / 2, 0.5, 1 / (1 + ratio), 1 / (1 + 1 / ratio));
}

double density(double t, double df) {
  return std::exp(log_gamma((df + 1) / 2) - log_gamma(df / 2) - 0.5 * std::log(df * kPi) -
                  (df + 1) / 2 * std::log1p(t * t / df));
}

}  // namespace

double regularized_incomplete_beta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || !(x >= 0 && x <= 1)) {
    throw InternalError("regularized_incomplete_beta: needs a, b > 0 and 0 <= x <= 1");
  }
  return incomplete_beta(a, b, x, 1 - x);
}

double student_t_cdf(double t, double df) {
  check_df(df);
  if (std::isnan(t)) return t;
  const double tail = lower_tail(t, df);
  return t < 0 ? tail : 1 - tail;
}

double student_t_quantile(double p, double df) {
  check_df(df);
  if (!(p > 0 && p < 1)) throw InternalError("student_t_quantile: p must be in (0, 1)");
  if (p == 0.5) return 0;
  const double tail = std::min(p, 1 - p);
  const double sign = p < 0.5 ? -1 : 1;
  // The t > 0 whose lower_tail is tail: a bracket [low, high] by doubling, then Newton's method
  // inside it, bisecting where a step would leave it (Numerical Recipes' rtsafe).
  double low = 0, high = 1;
  while (lower_tail(high, df) > tail) {
    low = high;
    high *= 2;
    if (high > kLargest) return sign * std::numeric_limits<double>::infinity();
  }
  double t = high;
  for (int i = 0; i < kMaxIterations; ++i) {
    const double f = lower_tail(t, df) - tail;  // decreasing in t
    if (f == 0) break;
    (f > 0 ? low : high) = t;
    double next = t + f / density(t, df);
    if (!(next > low && next < high)) next = 0.5 * (low + high);
    const bool done = std::fabs(next - t) <= kEpsilon * next;
    t = next;
    if (done) break;
  }
  return sign * t;
}

WelchTest welch_test(const std::vector<double>& baseline, const std::vector<double>& other) {
  WelchTest w;
  if (baseline.size() < 2 || other.size() < 2) return w;
  struct Side {
    double n, mean, variance_of_mean;  // s²/n
  };
  const auto side = [](const std::vector<double>& x) {
    const double n = static_cast<double>(x.size());
    const double mean = std::accumulate(x.begin(), x.end(), 0.0) / n;
    double squares = 0;
    for (double v : x) squares += (v - mean) * (v - mean);
    return Side{n, mean, squares / (n - 1) / n};
  };
  const Side a = side(baseline), b = side(other);
  const double variance = a.variance_of_mean + b.variance_of_mean;
  if (variance == 0) return w;
  w.defined = true;
  w.difference = b.mean - a.mean;
  w.se = std::sqrt(variance);
  // Welch–Satterthwaite: (v_a + v_b)² / (v_a²/(n_a − 1) + v_b²/(n_b − 1)), in shares of the sum.
  const double share_a = a.variance_of_mean / variance, share_b = b.variance_of_mean / variance;
  w.df = 1 / (share_a * share_a / (a.n - 1) + share_b * share_b / (b.n - 1));
  const double half = student_t_quantile(0.975, w.df) * w.se;
  w.ci95 = {w.difference - half, w.difference + half};
  w.p = std::min(1.0, 2 * lower_tail(w.difference / w.se, w.df));
  return w;
}

}  // namespace heed::eval
