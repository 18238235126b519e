#include "heed/attention/registry.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "heed/attention/scored_attention.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"

namespace heed::attention {
namespace {

struct Registry {
  std::map<std::string, AttentionInfo> by_name;
  std::map<std::string, std::string> aliases;  // alias → canonical
};

Registry& raw_registry() {
  static Registry registry;
  return registry;
}

Registry& registry() {
  static std::once_flag once;
  std::call_once(once, [] {
#define HEED_ATTENTION(file) register_##file();
#include "heed/attention/builtin_mechanisms.inc"
#undef HEED_ATTENTION
  });
  return raw_registry();
}

}  // namespace

void register_attention(AttentionInfo info) {
  Registry& r = raw_registry();
  auto taken = [&](const std::string& name) {
    return r.by_name.count(name) != 0 || r.aliases.count(name) != 0;
  };
  if (info.name.empty() || taken(info.name)) {
    throw InternalError("attention '" + info.name + "' registered twice");
  }
  for (const std::string& alias : info.aliases) {
    if (taken(alias) || alias == info.name) {
      throw InternalError("attention alias '" + alias + "' registered twice");
    }
    r.aliases[alias] = info.name;
  }
  const std::string name = info.name;
  r.by_name.emplace(name, std::move(info));
}

std::vector<std::string> attention_names() {
  std::vector<std::string> names;
  for (const auto& entry : registry().by_name) names.push_back(entry.first);
  return names;  // std::map keeps them sorted
}

std::string canonical_attention_name(const std::string& name) {
  const Registry& r = registry();
  if (r.by_name.count(name)) return name;
  auto alias = r.aliases.find(name);
  if (alias != r.aliases.end()) return alias->second;
  throw ConfigError("unknown attention '" + name + "' (valid: " + join(attention_names(), ", ") +
                    ")");
}

const AttentionInfo& attention_info(const std::string& name) {
  return registry().by_name.at(canonical_attention_name(name));
}

std::vector<DeclaredOption> declared_options() {
  std::vector<DeclaredOption> declared;
  for (const auto& [name, info] : registry().by_name) {
    for (const OptionSpec& spec : info.options) {
      auto same = std::find_if(declared.begin(), declared.end(),
                               [&](const DeclaredOption& d) { return d.spec.name == spec.name; });
      if (same == declared.end()) {
        declared.push_back({spec, {name}});
        continue;
      }
      const OptionSpec& first = same->spec;
      if (first.integer != spec.integer || first.min != spec.min || first.max != spec.max ||
          first.default_value != spec.default_value) {
        throw InternalError("attention option --" + spec.name + " is declared differently by " +
                            same->mechanisms.front() + " and " + name);
      }
      same->mechanisms.push_back(name);
    }
  }
  std::sort(declared.begin(), declared.end(), [](const DeclaredOption& a, const DeclaredOption& b) {
    return a.spec.name < b.spec.name;
  });
  return declared;
}

ResolvedAttention::ResolvedAttention(const AttentionInfo& info, AttentionConfig config)
    : info_(&info),
      config_(std::move(config)),
      context_size_(info.context_size ? info.context_size(config_) : config_.key_size),
      max_source_length_(info.max_source_length ? info.max_source_length(config_) : 0) {}

AttentionFlops ResolvedAttention::flops(const AttentionShape& shape) const {
  if (!info_->flops) throw InternalError("attention '" + name() + "' states no FLOP count");
  return info_->flops(shape, config_);
}

std::unique_ptr<Attention> ResolvedAttention::make(layers::ParameterStore& store,
                                                   const std::string& prefix,
                                                   onednn::Precision precision) const {
  AttentionConfig config = config_;
  config.precision = precision;
  return info_->factory(config, store, prefix);
}

ResolvedAttention resolve_attention(const std::string& name, AttentionConfig config) {
  const AttentionInfo& info = attention_info(name);
  if (config.query_size <= 0 || config.key_size <= 0) {
    throw ConfigError("attention sizes must be positive");
  }
  config.options = resolve_options(info.name, info.options, config.options);
  if (config.normalizer != Normalizer::kSoftmax && !info.traits.normalizes) {
    throw ConfigError("--attention-normalizer " + to_string(config.normalizer) +
                      " does not apply to attention '" + info.name + "' (it has no normaliser)");
  }
  return ResolvedAttention(info, std::move(config));
}

AttentionConfig resolved_config(const std::string& name, AttentionConfig config) {
  return resolve_attention(name, std::move(config)).config();
}

int64_t context_size(const std::string& name, const AttentionConfig& config) {
  return resolve_attention(name, config).context_size();
}

AttentionFlops attention_flops(const std::string& name, const AttentionShape& shape,
                               const AttentionConfig& config) {
  return resolve_attention(name, config).flops(shape);
}

std::unique_ptr<Attention> make_attention(const std::string& name, const AttentionConfig& config,
                                          layers::ParameterStore& store,
                                          const std::string& prefix) {
  return resolve_attention(name, config).make(store, prefix, config.precision);
}

}  // namespace heed::attention
