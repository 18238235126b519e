// The option tables of every tool (tools/<tool>/options.h, tools/common/options.h): each numeric
// option is declared with a range (cli::number), so that no value escapes the check of
// NaN, infinities and out-of-range numbers; cli::choice names the option and lists its values;
// heed-train's test hook comes from the environment, checked.
#include "completion/option_tables.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "common/options.h"
#include "heed/common/error.h"
#include "train/options.h"

using namespace heed;
namespace po = boost::program_options;

namespace {

bool is_number_type(const std::type_info& type) {
  for (const std::type_info* t :
       {&typeid(short), &typeid(unsigned short), &typeid(int), &typeid(unsigned), &typeid(long),
        &typeid(unsigned long), &typeid(long long), &typeid(unsigned long long), &typeid(float),
        &typeid(double), &typeid(long double)}) {
    if (type == *t) return true;
  }
  return false;
}

struct Audit {
  std::vector<std::string> numeric;   // every numeric option
  std::vector<std::string> unranged;  // those declared without cli::number
};

Audit audit(const cli::CommandLine& cl) {
  Audit result;
  for (const po::options_description& group : cl.groups()) {
    for (const auto& option : group.options()) {
      const po::value_semantic* semantic = option->semantic().get();
      const auto* typed = dynamic_cast<const po::typed_value_base*>(semantic);
      if (!typed || !is_number_type(typed->value_type())) continue;
      result.numeric.push_back(option->long_name());
      if (!dynamic_cast<const cli::RangeChecked*>(semantic)) {
        result.unranged.push_back(option->long_name());
      }
    }
  }
  return result;
}

}  // namespace

TEST_CASE("option tables: every numeric option of every tool has a range", "[options][fast]") {
  const std::vector<cli::OptionTable> tables = cli::every_option_table();
  CHECK(tables.size() == 7 + 6);  // the tools, heed-align's subcommands
  for (const cli::OptionTable& t : tables) {
    INFO("heed-" << t.tool << " " << t.subcommand);
    Audit result;
    t.declare([&](const cli::CommandLine& cl) { result = audit(cl); });
    // --seed at least (and --threads but in heed-bench-attn, which lists thread counts).
    CHECK_FALSE(result.numeric.empty());
    for (const std::string& option : result.unranged) {
      FAIL_CHECK("--" << option << " is numeric but has no range (declare it with cli::number)");
    }
  }
}

TEST_CASE("option tables: the audit finds a number declared without a range", "[options][fast]") {
  int value = 0;
  cli::CommandLine cl({"test", "", ""});
  cl.group("Test")("plain", cli::Value(std::unique_ptr<po::value_semantic>(po::value(&value))),
                   "an int without a range");
  const Audit result = audit(cl);
  CHECK(result.unranged == std::vector<std::string>{"plain"});
  CHECK(result.numeric.size() == 3);  // --threads, --seed and --plain
}

namespace {

// Parses args (after the program name) on cl; the usage error's message, or "" on success.
std::string parse_error(cli::CommandLine& cl, std::vector<std::string> args) {
  args.insert(args.begin(), "heed-test");
  args.push_back("--log-level");
  args.push_back("off");  // a successful parse starts logging
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  try {
    cl.parse(int(argv.size()), argv.data());
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

enum class Colour { kRed, kGreen };

Colour parse_colour(const std::string& name) {
  if (name == "red" || name == "r") return Colour::kRed;
  if (name == "green") return Colour::kGreen;
  throw ConfigError("--colour: unknown value '" + name + "' (expected red or green)");
}

}  // namespace

TEST_CASE("option tables: cli::choice names the option and lists the values", "[options][fast]") {
  std::string mode = "fast";
  Colour colour = Colour::kRed;
  const auto command_line = [&] {
    auto cl = std::make_unique<cli::CommandLine>(cli::ToolInfo{"test", "", ""});
    cl->group("Test")("mode", cli::choice(&mode, {"fast", "slow", "exact"}), "a choice")(
        "colour", cli::choice(&colour, "green", parse_colour), "a parsed choice");
    return cl;
  };
  {
    auto cl = command_line();
    CHECK(parse_error(*cl, {"--mode", "quick"}) ==
          "--mode: unknown value 'quick' (expected fast, slow or exact)");
  }
  {
    auto cl = command_line();
    CHECK(parse_error(*cl, {"--colour", "blue"}) ==
          "--colour: unknown value 'blue' (expected red or green)");
  }
  {
    // The default name is parsed into the target; an alias is taken.
    auto cl = command_line();
    CHECK(parse_error(*cl, {"--mode", "slow"}).empty());
    CHECK(mode == "slow");
    CHECK(colour == Colour::kGreen);
    auto again = command_line();
    CHECK(parse_error(*again, {"--colour", "r"}).empty());
    CHECK(colour == Colour::kRed);
  }
}

TEST_CASE("option tables: heed-train's kill hook comes from HEED_TEST_KILL_AFTER_STEP",
          "[options][fast]") {
  const char* kName = "HEED_TEST_KILL_AFTER_STEP";
  ::unsetenv(kName);
  CHECK(train_tool::kill_after_step_from_environment() == 0);
  ::setenv(kName, "25", 1);
  CHECK(train_tool::kill_after_step_from_environment() == 25);
  for (const char* bad : {"", "-1", "3x", "x", "1e3", "99999999999999999999"}) {
    INFO(bad);
    ::setenv(kName, bad, 1);
    CHECK_THROWS_AS(train_tool::kill_after_step_from_environment(), ConfigError);
  }
  ::unsetenv(kName);
}

TEST_CASE("option tables: a derived default is stored, printed and yields to a given value",
          "[options][fast]") {
  int beam = 5;
  std::string sampling = "none";
  const auto command_line = [&] {
    auto cl = std::make_unique<cli::CommandLine>(cli::ToolInfo{"test", "", ""});
    cl->group("Test")("beam", cli::number(&beam, cli::between(1, 1000)), "a number")(
        "sampling", cli::text_with_default(&sampling), "a text");
    cl->derived_default("beam", [&]() -> std::optional<std::string> {
      if (sampling == "none") return std::nullopt;
      return "1";
    });
    return cl;
  };
  {
    auto cl = command_line();
    CHECK(parse_error(*cl, {}).empty());
    CHECK(beam == 5);
  }
  {
    auto cl = command_line();
    CHECK(parse_error(*cl, {"--sampling", "full"}).empty());
    CHECK(beam == 1);
    CHECK_FALSE(cl->given("beam"));
  }
  {
    auto cl = command_line();
    CHECK(parse_error(*cl, {"--sampling", "full", "--beam", "4"}).empty());
    CHECK(beam == 4);
  }
  {
    // --print-config writes the derived value, so that the configuration replays.
    auto cl = command_line();
    std::ostringstream printed;
    std::streambuf* const stdout_buffer = std::cout.rdbuf(printed.rdbuf());
    const std::string error = parse_error(*cl, {"--sampling", "full", "--print-config"});
    std::cout.rdbuf(stdout_buffer);
    CHECK(error.empty());
    CHECK(printed.str().find("beam = 1\n") != std::string::npos);
  }
}
