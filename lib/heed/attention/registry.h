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

// The work whose cost a mechanism states (heed-bench-attn, the FLOPs column of docs/attention.md):
// a batch of N sentences, all S positions long, and Tq queries per forward() (1 when stepping, the
// target length T when all steps go at once). Q, K, A and the options are in the config.
struct AttentionShape {
  int64_t batch = 1;          // N
  int64_t source_length = 1;  // S
  int64_t queries = 1;        // Tq
};

// FLOPs of each call, counted as a GEMM counts them: 2 per multiply-add of every matrix
// product (vector and outer products included), so that GFLOP/s compares with a matmul's.
// Element-wise work (the normaliser, tanh, exp, masks, scalings, additions, sums) is not
// counted. Windows are counted at their full 2D + 1 positions (cut to S).
struct AttentionFlops {
  double precompute = 0;           // prepare(): the key-side precomputation, once per batch
  double forward = 0;              // one forward() of Tq queries
  double backward = 0;             // the backward() of that forward
  double precompute_backward = 0;  // finish_backward(): through the precomputation, once
};
using FlopCounter = std::function<AttentionFlops(const AttentionShape&, const AttentionConfig&)>;

struct AttentionInfo {
  std::string name;
  std::string summary;               // one line for --help and docs: the score function
  std::vector<std::string> aliases;  // other accepted names ("mlp" for "additive")
  bool has_parameters = false;       // with the default options (--learn-temperature adds one)
  AttentionTraits traits;
  std::vector<OptionSpec> options;  // its own options (heed-train --NAME, model config)
  // Width of the context for a config (the decoders size their inputs with it before building
  // the mechanism); null means key_size.
  std::function<int64_t(const AttentionConfig&)> context_size;
  // The longest source sentence it can score for a config (location: its --max-positions); null
  // means any.
  std::function<int64_t(const AttentionConfig&)> max_source_length;
  // Its FLOPs for a shape and a resolved config (every mechanism has one; a test checks it).
  FlopCounter flops;
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

// A mechanism looked up and checked once, with everything a model needs of it: its registry
// entry (canonical name, traits), its config with every option resolved and its context width.
// A model is built from one and carries it, so nothing downstream looks the name up again.
class ResolvedAttention {
 public:
  const std::string& name() const { return info_->name; }  // canonical
  const AttentionTraits& traits() const { return info_->traits; }
  // The sizes, the normaliser (checked against the traits) and every option of the mechanism,
  // defaults filled in (resolve_options).
  const AttentionConfig& config() const { return config_; }
  // Width C of the context (AttentionInfo::context_size, or key_size).
  int64_t context_size() const { return context_size_; }
  // The longest source sentence it can score (AttentionInfo::max_source_length); 0 = any.
  int64_t max_source_length() const { return max_source_length_; }

  // AttentionInfo::flops; InternalError when the mechanism states none.
  AttentionFlops flops(const AttentionShape& shape) const;
  // Builds the mechanism in precision, adding its parameters to store under prefix.
  std::unique_ptr<Attention> make(layers::ParameterStore& store, const std::string& prefix,
                                  onednn::Precision precision) const;

 private:
  friend ResolvedAttention resolve_attention(const std::string& name, AttentionConfig config);
  ResolvedAttention(const AttentionInfo& info, AttentionConfig config);

  const AttentionInfo* info_;  // the registry's entries live as long as the process
  AttentionConfig config_;
  int64_t context_size_;
  int64_t max_source_length_;
};

// The mechanism for a name or alias with config's options resolved and its normaliser checked
// against its traits; ConfigError naming the name or the option otherwise.
ResolvedAttention resolve_attention(const std::string& name, AttentionConfig config);

// Shorthands of resolve_attention(name, config) for callers without a model (heed-bench-attn,
// tests): its config(), context_size(), flops(shape) and make(store, prefix, config.precision).
AttentionConfig resolved_config(const std::string& name, AttentionConfig config);
int64_t context_size(const std::string& name, const AttentionConfig& config);
AttentionFlops attention_flops(const std::string& name, const AttentionShape& shape,
                               const AttentionConfig& config);
std::unique_ptr<Attention> make_attention(const std::string& name, const AttentionConfig& config,
                                          layers::ParameterStore& store, const std::string& prefix);

}  // namespace heed::attention
