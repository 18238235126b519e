// Other toolkits' spellings (Marian, OpenNMT, fast_align, sacreBLEU) that their users type out of
// habit: CommandLine::parse reads the ones whose meaning heed has as heed's option (an alias, on
// the command line and in config files) and refuses the others with heed's name, so that no habit
// is silently read as something else. The table is foreign_options.cpp; docs/cli-conventions.md
// lists it.
#pragma once

#include <string>
#include <vector>

namespace heed::cli {

enum class Habit {
  kAlias,    // the same meaning: read as heed_name
  kRefused,  // heed has no such option: refused, naming what heed does instead
  kMisread,  // heed has the spelling with another meaning: refused where heed_name is declared
};

struct ForeignOption {
  const char* spelling;   // as the toolkit writes it: "--cpu-threads", "-src", "-v"
  const char* toolkit;    // "Marian", "OpenNMT", "fast_align", "sacreBLEU"
  const char* tool;       // "" = every tool that declares heed_name, else that tool ("score")
  const char* heed_name;  // heed's long option: the alias's meaning, or the one a refusal names
  Habit habit;
  const char* why;  // a refusal's sentence (what heed does instead); for an alias, the meaning
};

const std::vector<ForeignOption>& foreign_options();

// The name an option word spells: without its leading dashes and any "=value", '_' read as '-'
// ("-beam_size=5" → "beam-size").
std::string spelled_name(const std::string& word);

}  // namespace heed::cli
