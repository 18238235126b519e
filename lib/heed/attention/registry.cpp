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

std::unique_ptr<Attention> make_attention(const std::string& name, const AttentionConfig& config,
                                          layers::ParameterStore& store,
                                          const std::string& prefix) {
  if (config.query_size <= 0 || config.key_size <= 0) {
    throw ConfigError("attention sizes must be positive");
  }
  return attention_info(name).factory(config, store, prefix);
}

}  // namespace heed::attention
