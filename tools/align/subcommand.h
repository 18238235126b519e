// heed-align is one binary with several subcommands (extract, symmetrize, score, plot, ibm2,
// agree), each in its own file behind this interface: it declares its own options, so
// "heed-align symmetrize --help" lists only what symmetrize takes and two subcommands may each
// have a --method of their own. align/options.h lists them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/options.h"

namespace heed::align_tool {

class Subcommand {
 public:
  virtual ~Subcommand() = default;
  virtual std::string name() const = 0;
  // The usage line after "heed-align " and one paragraph for --help.
  virtual std::string synopsis() const = 0;
  virtual std::string description() const = 0;
  // Adds the subcommand's option groups (and positionals) to cl, bound to its own config: the
  // subcommand's option table.
  virtual void add_options(cli::CommandLine& cl) = 0;
  // Runs after cl parsed successfully; returns the exit code.
  virtual int run(const cli::CommandLine& cl) = 0;
};

// Each subcommand's file defines its factory.
std::unique_ptr<Subcommand> make_extract();
std::unique_ptr<Subcommand> make_symmetrize();
std::unique_ptr<Subcommand> make_score();
std::unique_ptr<Subcommand> make_plot();
std::unique_ptr<Subcommand> make_ibm2();
std::unique_ptr<Subcommand> make_agree();

}  // namespace heed::align_tool
