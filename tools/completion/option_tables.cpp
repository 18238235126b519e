#include "completion/option_tables.h"

#include "align/options.h"
#include "average/options.h"
#include "bench-attn/options.h"
#include "pooling/options.h"
#include "score/options.h"
#include "tokenize/options.h"
#include "train/options.h"
#include "translate/options.h"

namespace heed::cli {
namespace {

// A tool with one table: its tool_info() and add_options(cl, Config&).
template <class Config, class Add>
OptionTable table(const ToolInfo& info, Add add) {
  return {info.name, "", info.subcommands, [info, add](const UseTable& use) {
            Config cfg;
            CommandLine cl(info);
            add(cl, cfg);
            use(cl);
          }};
}

}  // namespace

std::vector<OptionTable> every_option_table() {
  std::vector<OptionTable> tables = {
      table<tokenize_tool::TokenizeCliConfig>(tokenize_tool::tool_info(),
                                              tokenize_tool::add_options),
      table<train_tool::TrainCliConfig>(train_tool::tool_info(), train_tool::add_options),
      table<translate_tool::TranslateCliConfig>(translate_tool::tool_info(),
                                                translate_tool::add_options),
  };
  const align_tool::Subcommands subcommands = align_tool::subcommands();
  for (size_t i = 0; i < subcommands.size(); ++i) {
    const ToolInfo info = align_tool::tool_info(*subcommands[i], subcommands);
    tables.push_back(
        {info.name, subcommands[i]->name(), info.subcommands, [i](const UseTable& use) {
           align_tool::Subcommands all = align_tool::subcommands();
           CommandLine cl(align_tool::tool_info(*all[i], all));
           all[i]->add_options(cl);
           use(cl);
         }});
  }
  tables.insert(
      tables.end(),
      {table<bench_attn::BenchCliConfig>(bench_attn::tool_info(), bench_attn::add_options),
       table<score_tool::ScoreCliConfig>(score_tool::tool_info(), score_tool::add_options),
       table<average_tool::AverageCliConfig>(average_tool::tool_info(), average_tool::add_options),
       table<pooling::PoolingCliConfig>(pooling::tool_info(), pooling::add_options)});
  return tables;
}

}  // namespace heed::cli
