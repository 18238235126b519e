// The attention registry: name → factory. Tools take --attention NAME, model files store the
// name, tests and heed-bench-attn loop over names(). Built-in mechanisms register themselves on
// first use (the list is generated from lib/heed/attention/sources.cmake).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "heed/attention/attention.h"
#include "heed/layers/parameters.h"

namespace heed::attention {

// Builds a mechanism, adding its parameters (zero-initialised) to store under prefix
// ("decoder/attention/"). Throws ConfigError for sizes it cannot work with (dot needs Q = K).
using AttentionFactory = std::function<std::unique_ptr<Attention>(
    const AttentionConfig& config, layers::ParameterStore& store, const std::string& prefix)>;

struct AttentionInfo {
  std::string name;
  std::string summary;               // one line for --help and docs: the score function
  std::vector<std::string> aliases;  // other accepted names ("mlp" for "additive")
  bool has_parameters = false;
  AttentionTraits traits;
  std::vector<OptionSpec> options;  // its own options (heed-train --NAME, model config)
  // Width of the context for a config (the decoders size their inputs with it before building
  // the mechanism); null means key_size.
  std::function<int64_t(const AttentionConfig&)> context_size;
  AttentionFactory factory;
};

// Adds a mechanism; InternalError if the name or an alias is taken.
void register_attention(AttentionInfo info);

// Canonical names, sorted.
std::vector<std::string> attention_names();
// Canonical name for a name or alias; ConfigError listing the valid names otherwise.
std::string canonical_attention_name(const std::string& name);
const AttentionInfo& attention_info(const std::string& name);

// Every option any mechanism declares, once per name (for heed-train's --help), with the
// mechanisms that declare it; InternalError if two mechanisms declare one name differently.
struct DeclaredOption {
  OptionSpec spec;
  std::vector<std::string> mechanisms;
};
std::vector<DeclaredOption> declared_options();

// The config with the mechanism's options resolved (resolve_options) and the normaliser
// checked against its traits; ConfigError naming the option otherwise.
AttentionConfig resolved_config(const std::string& name, AttentionConfig config);
// Context width for a config (AttentionInfo::context_size or key_size).
int64_t context_size(const std::string& name, const AttentionConfig& config);

// Builds the mechanism from resolved_config(name, config).
std::unique_ptr<Attention> make_attention(const std::string& name, const AttentionConfig& config,
                                          layers::ParameterStore& store, const std::string& prefix);

}  // namespace heed::attention
