// heed_bench_attention_step: the cost of one decoder step of attention, for any registered
// mechanism, as the source grows (docs/benchmarks.md "Attention cost per step"). Not a test:
// it asserts nothing about time. bench/attention_step.sh runs it with the machine report.
//
//   heed_bench_attention_step [--batch N] [--size Q] [--lengths 50,100,...] [--steps T]
//                             [--repeats R] [--queries M] [--threads n] [--opt NAME=VALUE]...
//                             MECHANISM...
//
// For each mechanism and source length S: keys [S, N, K] (K = Q), all sentences of length S;
// prepare() once per batch (not timed), then decoder steps forward(query [1, N, Q], step t) for
// t = 0 … min(T, S) − 1 as in greedy or beam search (no tape, no weights asked for), each step
// timed alone, batch after batch until T·R steps are timed. Prints one TSV row per mechanism:
// the median microseconds per step at each S. The steps take M different random queries in turn
// (16; with 1, a predicted window stays where it is from step to step).
// --opt sets a mechanism option (window=10) for the mechanisms that declare it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "common/run.h"
#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/onednn/context.h"
#include "phases.h"

namespace {

using heed::tensor::Shape;
using heed::tensor::Tensor;

struct Settings {
  int64_t batch = 64;
  int64_t size = 512;
  std::vector<int64_t> lengths = {50, 100, 200, 400, 800};
  int64_t steps = 200;
  int64_t repeats = 3;
  int threads = 1;
  int64_t queries = 16;
  heed::attention::OptionValues options;
  std::vector<std::string> mechanisms;
};

heed::cli::ToolInfo info() {
  return heed::bench::bench_info(
      "attention-step", "[options] MECHANISM...",
      "Times one decoder step of attention (forward, Tq = 1) for each mechanism named, at each "
      "source length; prints the median microseconds per step (bench/attention_step.cpp, "
      "docs/benchmarks.md).");
}

// "50,100,200": positive counts.
std::vector<int64_t> parse_lengths(const std::string& text) {
  std::vector<int64_t> lengths;
  for (const std::string& part : heed::split(text, ",")) {
    char* end = nullptr;
    const long long value = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || value < 1) {
      throw heed::ConfigError("--lengths takes positive integers separated by commas, not '" +
                              text + "'");
    }
    lengths.push_back(value);
  }
  return lengths;
}

// "window=10": an option of the mechanisms that declare it.
std::pair<std::string, double> parse_opt(const std::string& text) {
  const size_t eq = text.find('=');
  char* end = nullptr;
  const double value = eq == std::string::npos ? 0 : std::strtod(text.c_str() + eq + 1, &end);
  if (eq == std::string::npos || eq == 0 || end == text.c_str() + eq + 1 || *end != '\0') {
    throw heed::ConfigError("--opt takes NAME=VALUE, not '" + text + "'");
  }
  return {text.substr(0, eq), value};
}

// The options; false when the program is done (--help, --print-config).
bool parse(int argc, char** argv, Settings& settings) {
  heed::cli::CommandLine cl(info());
  const heed::cli::Bounds count = heed::cli::at_least(1);
  std::string lengths = "50,100,200,400,800";
  std::vector<std::string> opts;
  // clang-format off
  cl.group("Measurement")
      ("batch",     heed::cli::number(&settings.batch, count), "sentences N")
      ("size",      heed::cli::number(&settings.size, count), "Q = K = A")
      ("lengths",   heed::cli::checked(&lengths, [](const std::string& v) { parse_lengths(v); }),
                    "source lengths S, separated by commas")
      ("steps",     heed::cli::number(&settings.steps, count), "decoder steps T timed per repeat")
      ("repeats",   heed::cli::number(&settings.repeats, count), "repeats R of T steps")
      ("queries",   heed::cli::number(&settings.queries, count),
                    "different random queries taken in turn")
      ("threads",   heed::cli::number(&settings.threads,
                                      heed::cli::between(1, heed::cli::kMaxThreads)),
                    "threads of oneDNN and OpenMP")
      ("opt",       heed::cli::checked_texts(&opts, [](const std::string& v) { parse_opt(v); }),
                    "NAME=VALUE: an option of the mechanisms that declare NAME (window=10)")
      ("mechanism", heed::cli::required_texts(&settings.mechanisms),
                    "the mechanisms to time (also given as the arguments)");
  // clang-format on
  cl.positional("mechanism", -1);
  if (!cl.parse(argc, argv)) return false;
  settings.lengths = parse_lengths(lengths);
  for (const std::string& opt : opts) settings.options.insert(parse_opt(opt));
  for (std::string& mechanism : settings.mechanisms) {
    mechanism = heed::attention::canonical_attention_name(mechanism);
  }
  return true;
}

void fill_uniform(Tensor& t, std::mt19937_64& rng, float scale) {
  std::uniform_real_distribution<float> uniform(-scale, scale);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = uniform(rng);
}

Tensor random_tensor(const Shape& shape, std::mt19937_64& rng) {
  Tensor t(shape);
  fill_uniform(t, rng, 1.f);
  return t;
}

// Median microseconds per step of `mechanism` at source length s.
double step_microseconds(const Settings& settings, const std::string& mechanism, int64_t s) {
  heed::attention::AttentionConfig config;
  config.query_size = config.key_size = config.attention_dim = settings.size;
  for (const heed::attention::OptionSpec& spec :
       heed::attention::attention_info(mechanism).options) {
    if (settings.options.count(spec.name))
      config.options[spec.name] = settings.options.at(spec.name);
  }
  heed::layers::ParameterStore store;
  const auto attention =
      heed::attention::make_attention(mechanism, config, store, "decoder/attention/");
  std::mt19937_64 rng(1);
  for (auto* p : store.all()) fill_uniform(p->value, rng, 0.05f);  // in place: borrowed
  attention->weights_changed();
  const int64_t n = settings.batch;
  const Tensor keys = random_tensor(Shape{s, n, settings.size}, rng);
  const std::vector<int64_t> lengths(size_t(n), s);
  // Different queries in turn, as a decoder's state changes from step to step (a predicted
  // window then jumps to where the query puts it).
  std::vector<Tensor> queries;
  for (int64_t i = 0; i < settings.queries; ++i) {
    queries.push_back(random_tensor(Shape{1, n, settings.size}, rng));
  }
  Tensor context;
  std::vector<double> times;
  const size_t wanted = size_t(settings.steps * settings.repeats);
  while (times.size() < wanted) {
    attention->prepare(keys, lengths, false);
    // Warm-up, not timed: primitives created, key-side operands packed once per batch.
    attention->forward(queries[0], 0, context, nullptr, nullptr);
    // Target positions inside the source: past its end local-m would reuse one clamped window.
    for (int64_t t = 0; t < std::min(settings.steps, s) && times.size() < wanted; ++t) {
      const Tensor& query = queries[size_t(t) % queries.size()];
      const auto start = std::chrono::steady_clock::now();
      attention->forward(query, t, context, nullptr, nullptr);
      const auto end = std::chrono::steady_clock::now();
      times.push_back(std::chrono::duration<double, std::micro>(end - start).count());
    }
  }
  std::nth_element(times.begin(), times.begin() + long(times.size() / 2), times.end());
  return times[times.size() / 2];
}

int run(int argc, char** argv) {
  Settings settings;
  if (!parse(argc, argv, settings)) return 0;
  heed::onednn::set_threads(settings.threads);
  std::printf("# %s\n", heed::onednn::backend_info().summary().c_str());
  std::printf("# N=%lld Q=K=A=%lld, median of %lld x %lld steps (forward, Tq = 1, no weights)\n",
              (long long)settings.batch, (long long)settings.size, (long long)settings.repeats,
              (long long)settings.steps);
  std::printf("mechanism");
  for (const int64_t s : settings.lengths) std::printf("\tS=%lld", (long long)s);
  std::printf("\n");
  for (const std::string& mechanism : settings.mechanisms) {
    std::printf("%s", mechanism.c_str());
    for (const int64_t s : settings.lengths) {
      std::printf("\t%.1f", step_microseconds(settings, mechanism, s));
      std::fflush(stdout);
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return heed::cli::run_tool(argc, argv, info(), run);
}
