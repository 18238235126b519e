// Option and config parsing of the tools (tools/common/options: CommandLine::parse). The first
// byte picks the channel: even = the rest is the content of a --config file, odd = the rest is
// argv, NUL-separated. The options mirror what the tools declare: strings, numbers, a float
// with float_value(), switches, a multi-token list, positionals, a choice. Bad input must be
// refused with a heed::Error or a boost::program_options::error (run.cpp maps both to exit
// code 64 with one line); nothing else may escape. Inputs naming --log-file are skipped (they
// would create files wherever the input says), and so is --config on the command line.
#include <boost/program_options/errors.hpp>
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
  cl.group("Fuzzed").add_options()("input,i", cli::po::value(&o.input), "a string")(
      "mode", cli::po::value(&o.mode)->default_value(o.mode), "a choice")(
      "beam,b", cli::po::value(&o.beam)->default_value(o.beam), "an int")(
      "max-tokens", cli::po::value(&o.max_tokens)->default_value(o.max_tokens), "a long long")(
      "learning-rate", cli::float_value(&o.learning_rate), "a float")(
      "lowercase", cli::po::bool_switch(&o.lowercase), "a switch")(
      "ref,r", cli::po::value(&o.references)->multitoken(), "a list")(
      "files", cli::po::value(&o.files), "positionals");
  cl.positional("files", -1);
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  try {
    if (!cl.parse(static_cast<int>(args.size()), argv.data())) return;
    cli::check_choice("mode", o.mode, {"greedy", "beam"});
  } catch (const boost::program_options::error& e) {
    (void)std::string(e.what());  // run.cpp prints it
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
