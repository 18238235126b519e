// Option and config parsing of the tools (tools/common/options: CommandLine::parse). The first
// byte picks the channel: even = the rest is the content of a --config file, odd = the rest is
// argv, NUL-separated. The options mirror what the tools declare: strings, range-checked
// numbers (int, long long, float), a choice, switches, a repeatable list, positionals.
// Bad input must be refused with a heed::Error or a boost::program_options::error (run.cpp maps
// both to exit code 64 with one line); nothing else may escape. Inputs naming --log-file are
// skipped (they would create files wherever the input says), and so is --config on the command
// line.
#include <boost/program_options/errors.hpp>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "common/options.h"
#include "fuzz_support.h"

using namespace heed;
using heed::fuzz::fuzz_fail;

namespace {

struct FuzzedOptions {
  std::string input;
  std::string mode = "greedy";
  int beam = 5;
  long long max_tokens = 4096;
  float learning_rate = 0.001f;
  bool lowercase = false;
  std::vector<std::string> references;
  std::vector<std::string> files;
};

void parse(std::vector<std::string> args) {
  FuzzedOptions o;
  cli::CommandLine cl({"fuzz", "[options] FILE...", "Options of every kind the tools declare."});
  // clang-format off
  cl.group("Fuzzed")
      ("input,i",       cli::text(&o.input), "a string")
      ("mode",          cli::choice(&o.mode, {"greedy", "beam"}), "a choice")
      ("beam,b",        cli::number(&o.beam, cli::between(1, 1000)), "an int")
      ("max-tokens",    cli::number(&o.max_tokens, cli::at_least(1)), "a long long")
      ("learning-rate", cli::number(&o.learning_rate, cli::above(0)), "a float")
      ("lowercase",     cli::flag(&o.lowercase), "a switch")
      ("ref,r",         cli::texts(&o.references), "a list")
      ("files",         cli::texts(&o.files), "positionals");
  // clang-format on
  cl.positional("files", -1);
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  try {
    if (!cl.parse(static_cast<int>(args.size()), argv.data())) return;
  } catch (const boost::program_options::error& e) {
    (void)std::string(e.what());  // run.cpp prints it: building the message must not hang
    return;
  } catch (const InternalError& e) {
    fuzz_fail(std::string("InternalError: ") + e.what());
  } catch (const Error&) {
    return;
  } catch (const std::exception& e) {
    fuzz_fail(std::string("exception that is neither a heed::Error nor a usage error: ") +
              e.what());
  }
  if (cl.threads() < 1) fuzz_fail("threads() < 1 after a successful parse");
  if (cl.given("beam") && cl.values()["beam"].as<int>() != o.beam) fuzz_fail("--beam not stored");
  if (o.beam < 1 || o.beam > 1000 || o.max_tokens < 1 || !(o.learning_rate > 0.f) ||
      !std::isfinite(o.learning_rate)) {
    fuzz_fail("a number outside its declared range was accepted");
  }
  if (o.mode != "greedy" && o.mode != "beam") fuzz_fail("a choice outside its set was accepted");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest = fuzz::as_text(data + 1, size - 1);
  if (rest.find("log-f") != std::string_view::npos) return 0;
  std::vector<std::string> args = {"heed-fuzz"};
  if (data[0] % 2 == 0) {
    static const fuzz::ScratchFile config("options_config");
    args.push_back("--config");
    args.push_back(config.write(rest));
  } else {
    size_t start = 0;
    while (start <= rest.size() && args.size() < 32) {
      size_t end = rest.find('\0', start);
      if (end == std::string_view::npos) end = rest.size();
      args.emplace_back(rest.substr(start, end - start));
      // A --config named on the command line could be a FIFO or /dev/stdin and block.
      if (args.back().rfind("--c", 0) == 0) return 0;
      start = end + 1;
    }
  }
  parse(std::move(args));
  return 0;
}
