// The decoder: target embeddings → a stack of RNN layers with attention over the encoder states,
// in one of two arrangements, each its own class over the shared RnnStack (rnn_stack.h;
// docs/attention.md):
//  - LuongDecoder: query = current top state h_t; h̃_t = tanh(W_c [c_t; h_t]); input feeding
//    optional. Without input feeding (and with a stateless mechanism) nothing depends on the
//    previous output, so under teacher forcing the RNN stack runs over all T steps in one
//    primitive call per layer and the attention is one batched call for all steps (the "fast
//    path"); otherwise it steps.
//  - BahdanauDecoder: query = previous top state s_{t−1}; [emb; c_t] is the RNN input; output s_t.
// The initial states come from a Bridge chosen by name (bridge.h).
//
// Teacher forcing (training, scoring, forced alignment) is forward()/backward(); search uses
// begin()/step()/select() on rows that are live hypotheses.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "heed/attention/registry.h"
#include "heed/common/rng.h"
#include "heed/layers/dropout.h"
#include "heed/layers/parameters.h"
#include "heed/model/bridge.h"
#include "heed/model/config.h"
#include "heed/model/rnn_stack.h"
#include "heed/onednn/linear.h"
#include "heed/onednn/precision.h"
#include "heed/tensor/tensor.h"

namespace heed::model {

class Decoder {
 public:
  virtual ~Decoder();

  void weights_changed();
  attention::Attention& attention() { return *attention_; }
  const Bridge& bridge() const { return *bridge_; }
  // True when teacher forcing runs the whole target in one call.
  virtual bool fast_path() const { return false; }
  // Forces stepping even where the fast path applies (tests compare both).
  void set_force_stepping(bool force) { force_stepping_ = force; }

  // Teacher forcing. keys [S, N, K] and finals [N, K] from the encoder (kept alive and
  // unchanged until backward); tgt_in batch-major [N, T]. Returns the outputs o [T, N, H]
  // (after dropout). With keep_attention the weights are kept in attention_weights().
  const tensor::Tensor& forward(const tensor::Tensor& keys, const std::vector<int64_t>& src_lengths,
                                const tensor::Tensor& finals, const int32_t* tgt_in,
                                const std::vector<int64_t>& tgt_lengths, int64_t t, bool training,
                                Rng* dropout_rng, bool keep_attention = false);
  // [N, T, S] from the last forward with keep_attention.
  const tensor::Tensor& attention_weights() const { return weights_; }
  // d_out [T, N, H] → d_keys [S, N, K] and d_finals [N, K] (both overwritten). Parameter
  // gradients accumulate into the store. d_weights [N, T, S], if not null: the gradient of a
  // loss on the attention weights themselves (guided alignment), kept alive until it returns.
  void backward(const tensor::Tensor& d_out, tensor::Tensor& d_keys, tensor::Tensor& d_finals,
                const tensor::Tensor* d_weights = nullptr);

  // Search: rows = sentences at first.
  void begin(const tensor::Tensor& keys, const std::vector<int64_t>& src_lengths,
             const tensor::Tensor& finals);
  // Row i continues old row rows[i].
  void select(const std::vector<int64_t>& rows);
  // One step for every row: out [rows, H] (the vector the output layer projects), weights
  // [rows, 1, S] when not null.
  void step(const int32_t* tokens, tensor::Tensor& out, tensor::Tensor* weights);

 protected:
  // input_extra: the RNN input's width beyond the embedding (context, input feeding).
  Decoder(const ModelConfig& config, const attention::ResolvedAttention& attention,
          onednn::Precision precision, layers::ParameterStore& store, int64_t input_extra);

  // The arrangement: fills out_ [T, N, H] from embedded_ (teacher forcing) and runs it back.
  virtual void run_forward(bool training, bool keep_attention) = 0;
  virtual void run_backward() = 0;
  virtual void begin_search() {}
  virtual void select_search(const std::vector<int64_t>&) {}
  virtual void run_step(const tensor::Tensor& emb, tensor::Tensor& out,
                        tensor::Tensor* weights) = 0;
  virtual void arrangement_weights_changed() {}

  // Runs the attention for queries q [Tc, N, H] at steps [t0, t0 + Tc) into ctx [Tc, N, C];
  // keeps the weights in weights_ when asked to.
  void attend(const tensor::Tensor& q, int64_t t0, tensor::Tensor& ctx,
              attention::AttentionTape* tape, bool keep_attention);
  // Backward: the attention of steps [t0, t0 + tc) recorded in tape, with rows t0 … t0 + tc of
  // the weights' own gradient when backward() was given one.
  void attention_backward(attention::AttentionTape& tape, int64_t t0, int64_t tc);

  int64_t embed_, hidden_, context_;
  bool force_stepping_ = false;
  attention::AttentionTraits traits_;
  layers::ParameterStore* store_;
  layers::Parameter* embedding_;
  RnnStack stack_;
  std::unique_ptr<attention::Attention> attention_;
  std::unique_ptr<Bridge> bridge_;
  layers::Dropout dropout_embed_;
  layers::Dropout dropout_out_;

  // Teacher forcing state.
  const int32_t* tgt_in_ = nullptr;
  std::vector<int64_t> tgt_lengths_;
  int64_t n_ = 0, t_ = 0, s_ = 0;
  const tensor::Tensor* keys_ = nullptr;
  const tensor::Tensor* finals_ = nullptr;
  tensor::Tensor embedded_, out_, bridge_out_, weights_, step_weights_, ctx_;
  std::vector<attention::AttentionTape> attention_tapes_;
  tensor::Tensor d_out_, d_emb_, d_ctx_, d_q_, dx0_;
  const tensor::Tensor* d_weights_ = nullptr;  // [N, T, S] during backward(), or null
  tensor::Tensor d_weights_chunk_;

  // Search state.
  int64_t rows_ = 0;
  int64_t search_step_ = 0;
  int64_t search_source_length_ = 0;
  tensor::Tensor ctx_step_, emb_step_;
};

// The decoder config.decoder names with the resolved attention, its parameters added to store
// in a fixed order: embedding, rnn, attention, the arrangement's own (attn_out), bridge.
std::unique_ptr<Decoder> make_decoder(const ModelConfig& config,
                                      const attention::ResolvedAttention& attention,
                                      onednn::Precision precision, layers::ParameterStore& store);
// The two arrangements (luong_decoder.cpp, bahdanau_decoder.cpp).
std::unique_ptr<Decoder> make_luong_decoder(const ModelConfig& config,
                                            const attention::ResolvedAttention& attention,
                                            onednn::Precision precision,
                                            layers::ParameterStore& store);
std::unique_ptr<Decoder> make_bahdanau_decoder(const ModelConfig& config,
                                               const attention::ResolvedAttention& attention,
                                               onednn::Precision precision,
                                               layers::ParameterStore& store);

}  // namespace heed::model
