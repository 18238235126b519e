#include "heed/decode/sampler.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

#include "heed/common/error.h"

namespace heed::decode {
namespace {

// Uniform in [0, 1): the generator's top 53 bits, exactly a double's precision.
double uniform(Rng& rng) {
  return std::ldexp(static_cast<double>(rng() >> 11), -53);
}

}  // namespace

void SamplingOptions::validate() const {
  if (method == SamplingMethod::kTopK && top_k < 1) {
    throw ConfigError("--sampling topk:K needs K of at least 1 (full draws from every token)");
  }
  if (method == SamplingMethod::kNucleus && !(top_p > 0.0f && top_p <= 1.0f)) {
    throw ConfigError("--sampling nucleus:P needs P in (0, 1]");
  }
  if (!(temperature > 0.0f) || !std::isfinite(temperature)) {
    throw ConfigError("--temperature must be a finite number > 0");
  }
}

SamplingOptions parse_sampling(const std::string& spec) {
  SamplingOptions options;
  const size_t colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  const std::string value = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (colon == std::string::npos && (name == "none" || name == "full")) {
    options.method = name == "none" ? SamplingMethod::kNone : SamplingMethod::kFull;
    return options;
  }
  if (colon != std::string::npos && name == "topk") {
    const char* end = value.data() + value.size();
    const auto [stop, error] = std::from_chars(value.data(), end, options.top_k);
    if (error != std::errc() || stop != end || options.top_k < 1) {
      throw ConfigError("--sampling topk:K: K must be an integer in [1, " +
                        std::to_string(std::numeric_limits<int>::max()) + "], not '" + value + "'");
    }
    options.method = SamplingMethod::kTopK;
    return options;
  }
  if (colon != std::string::npos && name == "nucleus") {
    char* stop = nullptr;
    const double p = std::strtod(value.c_str(), &stop);
    options.top_p = static_cast<float>(p);
    if (value.empty() || *stop != '\0' || !(p > 0.0 && p <= 1.0) || !(options.top_p > 0.0f)) {
      throw ConfigError("--sampling nucleus:P: P must be a number in (0, 1], not '" + value + "'");
    }
    options.method = SamplingMethod::kNucleus;
    return options;
  }
  throw ConfigError("--sampling: unknown value '" + spec +
                    "' (expected none, full, topk:K or nucleus:P)");
}

Sampler::Sampler(SamplingOptions options) : options_(std::move(options)) {
  options_.validate();
  if (!options_.enabled()) throw InternalError("a Sampler needs a sampling method, not none");
}

int Sampler::draw(const float* log_probs, int columns, int excluded, Rng& rng) {
  // Weights relative to the most probable token that may be drawn: it weighs 1, none overflows,
  // and at a low temperature the others underflow to 0 (never drawn) rather than to NaN.
  float best = -std::numeric_limits<float>::infinity();
  for (int c = 0; c < columns; ++c) {
    if (c != excluded && std::isfinite(log_probs[c]) && log_probs[c] > best) best = log_probs[c];
  }
  if (!std::isfinite(best)) {
    throw InternalError("sampling: the scorer gave no token a finite log-probability");
  }
  const double temperature = static_cast<double>(options_.temperature);
  weight_.resize(static_cast<size_t>(columns));
  order_.clear();
  for (int c = 0; c < columns; ++c) {
    if (c == excluded || !std::isfinite(log_probs[c])) continue;
    const double w =
        std::exp((static_cast<double>(log_probs[c]) - static_cast<double>(best)) / temperature);
    if (w > 0.0) {
      weight_[static_cast<size_t>(c)] = w;
      order_.push_back(c);
    }
  }
  // Most probable first, equal log-probabilities by column: greedy search's order (topk:1 is
  // greedy search at any temperature, even where a high one rounds weights together), and a
  // fixed one, so that the draw is too.
  const auto more_probable = [log_probs](int a, int b) {
    return log_probs[a] != log_probs[b] ? log_probs[a] > log_probs[b] : a < b;
  };
  // Sorts order_[from, to) to hold the most probable columns of order_[from, end): a nucleus
  // is usually a few tokens of a large vocabulary, so it is sorted only as far as needed.
  const auto sort_best = [&](size_t from, size_t to) {
    const auto first = order_.begin() + static_cast<long>(from);
    const auto last = order_.begin() + static_cast<long>(to);
    if (to < order_.size()) std::nth_element(first, last, order_.end(), more_probable);
    std::sort(first, last, more_probable);
  };
  const auto weight_at = [this](size_t i) { return weight_[static_cast<size_t>(order_[i])]; };

  // The support: order_[0, kept), and its weight, summed in the order the draw walks it.
  size_t kept = order_.size();
  double mass = 0.0;
  switch (options_.method) {
    case SamplingMethod::kNone:  // refused by the constructor
    case SamplingMethod::kFull:
      for (size_t i = 0; i < kept; ++i) mass += weight_at(i);
      break;
    case SamplingMethod::kTopK:
      kept = std::min(kept, static_cast<size_t>(options_.top_k));
      sort_best(0, kept);
      for (size_t i = 0; i < kept; ++i) mass += weight_at(i);
      break;
    case SamplingMethod::kNucleus: {
      double total = 0.0;
      for (size_t i = 0; i < order_.size(); ++i) total += weight_at(i);
      const double wanted = static_cast<double>(options_.top_p) * total;
      // The fewest most probable tokens whose weight reaches wanted (all of them, whatever the
      // rounding, at the end).
      kept = 0;
      for (size_t sorted = 0, until = 16; kept == 0; until *= 4) {
        until = std::min(until, order_.size());
        sort_best(sorted, until);
        for (; sorted < until && kept == 0; ++sorted) {
          mass += weight_at(sorted);
          if (mass >= wanted || sorted + 1 == order_.size()) kept = sorted + 1;
        }
      }
      break;
    }
  }
  // The walk adds the same weights in the same order as `mass`, so it ends at mass > u: the
  // last column is reached only when u falls in its share.
  const double u = uniform(rng) * mass;
  double sum = 0.0;
  for (size_t i = 0; i + 1 < kept; ++i) {
    sum += weight_at(i);
    if (sum > u) return order_[i];
  }
  return order_[kept - 1];
}

}  // namespace heed::decode
