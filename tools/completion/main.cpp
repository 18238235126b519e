// heed-completion DIR TOOL...: writes DIR/heed-<tool>, the bash completion of every tool and
// subcommand, from the option tables themselves (completion/option_tables.h). The build runs it,
// so the completion installed to share/bash-completion/completions cannot drift from the
// options; it is not installed itself.
#include <boost/program_options.hpp>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/run.h"
#include "completion/option_tables.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/io/line_writer.h"

namespace {

using namespace heed;
namespace po = boost::program_options;

// Names go into the script unquoted: refuse anything but [a-z0-9-] rather than escape.
const std::string& checked_name(const std::string& name) {
  const bool plain =
      !name.empty() &&
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos;
  if (!plain) {
    throw InternalError("option or subcommand name unfit for a completion: '" + name + "'");
  }
  return name;
}

// Every spelling of every option of cl: "--output -o --input -i ...", in --help's order.
std::vector<std::string> option_words(const cli::CommandLine& cl) {
  std::vector<std::string> words;
  for (const po::options_description& group : cl.groups()) {
    for (const auto& option : group.options()) {
      const auto [names, count] = option->long_names();
      for (size_t i = 0; i < count; ++i) words.push_back("--" + checked_name(names[i]));
      const std::string shown =
          option->canonical_display_name(po::command_line_style::allow_dash_for_short);
      if (shown.size() == 2 && shown[0] == '-') words.push_back(shown);
    }
  }
  return words;
}

// 'w1 w2 ...' from the next line on, in lines of at most 100 characters indented by indent
// spaces (compgen -W splits on the line breaks too).
std::string word_list(const std::vector<std::string>& words, size_t indent) {
  std::string text = "'", line;
  for (const std::string& word : words) {
    if (!line.empty() && indent + line.size() + 1 + word.size() > 100) {
      text += "\n" + std::string(indent, ' ') + line;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return text + "\n" + std::string(indent, ' ') + line + "'";
}

struct Tool {
  std::vector<std::string> subcommands;  // the default first; empty for none
  // Option words per subcommand ("" when the tool has one table for all).
  std::vector<std::pair<std::string, std::vector<std::string>>> tables;
};

std::string script(const std::string& tool, const Tool& t) {
  const std::string binary = "heed-" + tool;
  std::string function = "_heed_" + tool;
  for (char& c : function) c = c == '-' ? '_' : c;
  std::ostringstream out;
  out << "# bash completion for " << binary << ", generated at build time from its option tables\n"
      << "# (tools/completion/main.cpp): do not edit. Options after '-'"
      << (t.subcommands.empty() ? "" : ", subcommands as the first word")
      << ";\n# file names otherwise.\n"
      << function << "() {\n"
      << "  local cur=${COMP_WORDS[COMP_CWORD]}\n"
      << "  COMPREPLY=()\n";
  const bool per_subcommand = t.tables.size() > 1;
  if (per_subcommand) {
    std::string names;
    for (const std::string& s : t.subcommands) names += (names.empty() ? "" : "|") + s;
    out << "  local subcommand=" << t.subcommands.front() << "\n"
        << "  case ${COMP_WORDS[1]-} in " << names << ") subcommand=${COMP_WORDS[1]} ;; esac\n";
  }
  if (!t.subcommands.empty()) {
    out << "  if [[ $COMP_CWORD -eq 1 && $cur != -* ]]; then\n"
        << "    COMPREPLY=($(compgen -W " << word_list(t.subcommands, 6) << " -- \"$cur\"))\n"
        << "  el";
  } else {
    out << "  ";
  }
  out << "if [[ $cur == -* ]]; then\n";
  if (per_subcommand) {
    out << "    case $subcommand in\n";
    for (const auto& [subcommand, words] : t.tables) {
      out << "      " << subcommand << ")\n"
          << "        COMPREPLY=($(compgen -W " << word_list(words, 10) << " -- \"$cur\")) ;;\n";
    }
    out << "    esac\n";
  } else {
    out << "    COMPREPLY=($(compgen -W " << word_list(t.tables.front().second, 6)
        << " -- \"$cur\"))\n";
  }
  out << "  fi\n"
      << "}\n"
      << "complete -o default -F " << function << " " << binary << "\n";
  return out.str();
}

int completion_main(int argc, char** argv) {
  if (argc < 3) throw ConfigError("usage: heed-completion DIR TOOL... (writes DIR/heed-TOOL)");
  std::map<std::string, Tool> tools;
  std::vector<std::string> order;
  for (const cli::OptionTable& table : cli::every_option_table()) {
    if (!tools.count(table.tool)) order.push_back(checked_name(table.tool));
    Tool& tool = tools[table.tool];
    tool.subcommands = table.subcommands;
    for (const std::string& s : tool.subcommands) checked_name(s);
    table.declare([&](const cli::CommandLine& cl) {
      tool.tables.emplace_back(table.subcommand, option_words(cl));
    });
  }
  // The build names the tools it installs: a tool without an option table here, or a table of a
  // tool not built, is a mistake to stop at rather than a completion silently missing.
  const std::set<std::string> tabled(order.begin(), order.end()), built(argv + 2, argv + argc);
  if (tabled != built) {
    throw InternalError("the option tables (tools/completion/option_tables.cpp) are of " +
                        join({tabled.begin(), tabled.end()}, " ") + " but the build makes " +
                        join({built.begin(), built.end()}, " "));
  }
  for (const std::string& tool : order) {
    io::write_file_atomically(std::string(argv[1]) + "/heed-" + tool, script(tool, tools[tool]));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return heed::cli::run_tool(argc, argv, "completion", completion_main);
}
