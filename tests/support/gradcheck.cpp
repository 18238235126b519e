#include "support/gradcheck.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <sstream>

namespace heed::test {

GradCheckResult gradcheck(const std::function<double()>& loss, const std::vector<GradParam>& params,
                          const GradCheckOptions& options) {
  GradCheckResult result;
  Rng rng = make_rng(options.seed, 0);
  const auto derivative = [&](float* p, double eps) {
    const float saved = *p;
    *p = static_cast<float>(static_cast<double>(saved) + eps);
    const double plus = loss();
    *p = static_cast<float>(static_cast<double>(saved) - eps);
    const double minus = loss();
    *p = saved;
    // The step actually taken in float.
    const double step = static_cast<double>(static_cast<float>(static_cast<double>(saved) + eps)) -
                        static_cast<double>(static_cast<float>(static_cast<double>(saved) - eps));
    return (plus - minus) / step;
  };
  const auto tolerance = [&](double a, double b) {
    return options.atol + options.rtol * std::max(std::fabs(a), std::fabs(b));
  };
  for (const GradParam& param : params) {
    std::vector<int64_t> coords(static_cast<size_t>(param.size));
    std::iota(coords.begin(), coords.end(), 0);
    if (param.size > options.max_coords) {
      std::shuffle(coords.begin(), coords.end(), rng);
      coords.resize(static_cast<size_t>(options.max_coords));
      std::sort(coords.begin(), coords.end());
    }
    for (int64_t i : coords) {
      float* p = param.value + i;
      const double numeric = derivative(p, options.eps);
      const double analytic = static_cast<double>(param.grad[i]);
      if (options.skip_kinks) {
        const double half = derivative(p, options.eps / 2);
        if (std::fabs(numeric - half) > tolerance(numeric, half)) {
          ++result.skipped;
          continue;
        }
      }
      ++result.checked;
      const double error = std::fabs(numeric - analytic);
      result.max_abs_error = std::max(result.max_abs_error, error);
      if (error > tolerance(numeric, analytic) || std::isnan(error)) {
        result.ok = false;
        std::ostringstream line;
        line << param.name << "[" << i << "]: numeric " << numeric << " analytic " << analytic
             << "\n";
        result.report += line.str();
      }
    }
  }
  return result;
}

GradParam grad_param(const std::string& name, tensor::Tensor& value, const tensor::Tensor& grad) {
  return GradParam{name, value.data(), grad.data(), value.numel()};
}

void fill_uniform(tensor::Tensor& t, Rng& rng, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  float* p = t.data();
  for (int64_t i = 0, n = t.numel(); i < n; ++i) p[i] = dist(rng);
}

tensor::Tensor random_tensor(const tensor::Shape& shape, Rng& rng, float lo, float hi) {
  tensor::Tensor t = tensor::Tensor::uninitialized(shape);
  fill_uniform(t, rng, lo, hi);
  return t;
}

Projection::Projection(const tensor::Shape& shape, Rng& rng)
    : weights_(random_tensor(shape, rng)) {}

double Projection::operator()(const tensor::Tensor& y) const {
  const float* w = weights_.data();
  const float* v = y.data();
  double s = 0;
  for (int64_t i = 0, n = y.numel(); i < n; ++i) {
    s += static_cast<double>(w[i]) * static_cast<double>(v[i]);
  }
  return s;
}

}  // namespace heed::test
