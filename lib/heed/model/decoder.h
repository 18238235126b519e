// The decoder: target embeddings → a stack of RNN layers (rnn_stack.h) with attention over the
// encoder states, in one of three arrangements, each its own class (docs/attention.md):
//  - LuongDecoder: query = current top state h_t; h̃_t = tanh(W_c [c_t; h_t]); input feeding
//    optional. Without input feeding (and with a stateless mechanism) nothing depends on the
//    previous output, so under teacher forcing the RNN stack runs over all T steps in one
//    primitive call per layer and the attention is one batched call for all steps (the "fast
//    path"); otherwise it steps.
//  - BahdanauDecoder: query = previous top state s_{t−1}; [emb; c_t] is the RNN input; output s_t.
//  - ConcatDecoder: query = current top state h_t; output [c_t; h_t] itself (no attentional
//    layer, no input feeding), so the output layer reads C + H columns; the fast path as Luong's.
// This base class owns what they share — the embedding, the RNN stack, the attention (with its
// tapes and weights), the bridge (the initial states, bridge.h) and the dropouts — and runs them
// around the arrangement, which owns its own buffers.
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
#include "heed/onednn/precision.h"
#include "heed/tensor/tensor.h"

namespace heed::model {

class Decoder {
 public:
  // The decoder config.decoder names with the resolved attention, its parameters added to store
  // in the order of every model file: embedding, rnn, attention, the arrangement's own
  // (attn_out), bridge.
  static std::unique_ptr<Decoder> make(const ModelConfig& config,
                                       const attention::ResolvedAttention& attention,
                                       onednn::Precision precision, layers::ParameterStore& store);
  virtual ~Decoder();

  // Width O of the outputs, the vectors the output layer projects (ModelConfig::output_size).
  int64_t output_size() const { return output_size_; }

  void weights_changed();
  attention::Attention& attention() { return *attention_; }
  const Bridge& bridge() const { return *bridge_; }
  // True when teacher forcing runs the whole target in one call.
  virtual bool fast_path() const { return false; }
  // Forces stepping even where the fast path applies (tests compare both).
  void set_force_stepping(bool force) { force_stepping_ = force; }

  // Teacher forcing. keys [S, N, K] and finals [N, K] from the encoder (kept alive and
  // unchanged until backward); tgt_in batch-major [N, T]. Returns the outputs o [T, N, O]
  // (after dropout). With keep_attention the weights are kept in attention_weights().
  const tensor::Tensor& forward(const tensor::Tensor& keys, const std::vector<int64_t>& src_lengths,
                                const tensor::Tensor& finals, const int32_t* tgt_in,
                                const std::vector<int64_t>& tgt_lengths, int64_t t, bool training,
                                Rng* dropout_rng, bool keep_attention = false);
  // [N, T, S] from the last forward with keep_attention.
  const tensor::Tensor& attention_weights() const { return weights_; }
  // d_out [T, N, O] → d_keys [S, N, K] and d_finals [N, K] (both overwritten). Parameter
  // gradients accumulate into the store. d_weights [N, T, S], if not null: the gradient of a
  // loss on the attention weights themselves (guided alignment), kept alive until it returns.
  void backward(const tensor::Tensor& d_out, tensor::Tensor& d_keys, tensor::Tensor& d_finals,
                const tensor::Tensor* d_weights = nullptr);

  // Search: rows = sentences at first.
  void begin(const tensor::Tensor& keys, const std::vector<int64_t>& src_lengths,
             const tensor::Tensor& finals);
  // Row i continues old row rows[i].
  void select(const std::vector<int64_t>& rows);
  // One step for every row: out [rows, O] (the vector the output layer projects), weights
  // [rows, 1, S] when not null.
  void step(const int32_t* tokens, tensor::Tensor& out, tensor::Tensor* weights);

 protected:
  // input_extra: the RNN input's width beyond the embedding (context, input feeding).
  Decoder(const ModelConfig& config, const attention::ResolvedAttention& attention,
          onednn::Precision precision, layers::ParameterStore& store, int64_t input_extra);

  // The arrangement. Teacher forcing: embedded [T, N, E] → out [T, N, O] (before dropout); when
  // training, the stack and attend() record what run_backward needs, the arrangement its own.
  virtual void run_forward(const tensor::Tensor& embedded, tensor::Tensor& out) = 0;
  // d_out [T, N, O] (after dropout's backward; the arrangement may change it) → d_embedded
  // [T, N, E] (overwritten).
  virtual void run_backward(tensor::Tensor& d_out, tensor::Tensor& d_embedded) = 0;
  // Search, after the stack and the attention: rows sentences start; rows continue old ones;
  // one step of the embedded tokens emb [1, R, E] → out [R, O] (and weights [R, 1, S]).
  virtual void begin_search(int64_t /*rows*/) {}
  virtual void select_search(const std::vector<int64_t>& /*rows*/) {}
  virtual void run_step(const tensor::Tensor& emb, tensor::Tensor& out,
                        tensor::Tensor* weights) = 0;
  virtual void arrangement_weights_changed() {}

  RnnStack& stack() { return stack_; }
  bool force_stepping() const { return force_stepping_; }
  // Teacher forcing: the attention of queries q [Tc, N, Q] at steps [t0, t0 + Tc), recorded on
  // the tape of chunk when training, into ctx [Tc, N, C]; the weights kept when asked for.
  void attend(size_t chunk, const tensor::Tensor& q, int64_t t0, tensor::Tensor& ctx);
  // Its backward: d_ctx [Tc, N, C] → d_q [Tc, N, Q] (overwritten), with rows t0 … t0 + Tc of
  // the weights' own gradient when backward() was given one.
  void attend_backward(size_t chunk, int64_t t0, const tensor::Tensor& d_ctx, tensor::Tensor& d_q);
  // Search: the attention of the current step's queries q [1, R, Q] into ctx [1, R, C].
  void attend_step(const tensor::Tensor& q, tensor::Tensor& ctx, tensor::Tensor* weights);

 private:
  // The arrangements (luong_decoder.cpp, bahdanau_decoder.cpp, concat_decoder.cpp), before
  // make() adds the bridge.
  static std::unique_ptr<Decoder> make_luong(const ModelConfig& config,
                                             const attention::ResolvedAttention& attention,
                                             onednn::Precision precision,
                                             layers::ParameterStore& store);
  static std::unique_ptr<Decoder> make_bahdanau(const ModelConfig& config,
                                                const attention::ResolvedAttention& attention,
                                                onednn::Precision precision,
                                                layers::ParameterStore& store);
  static std::unique_ptr<Decoder> make_concat(const ModelConfig& config,
                                              const attention::ResolvedAttention& attention,
                                              onednn::Precision precision,
                                              layers::ParameterStore& store);

  int64_t output_size_;
  bool force_stepping_ = false;
  layers::Parameter* embedding_;
  RnnStack stack_;
  std::unique_ptr<attention::Attention> attention_;
  std::unique_ptr<Bridge> bridge_;
  layers::Dropout word_dropout_;  // whole target words (--dropout-trg), before dropout_embed_
  layers::Dropout dropout_embed_;
  layers::Dropout dropout_out_;

  // Teacher forcing.
  bool training_ = false;
  bool keep_attention_ = false;
  const int32_t* tgt_in_ = nullptr;
  std::vector<int64_t> tgt_lengths_;
  int64_t n_ = 0, t_ = 0, s_ = 0;
  const tensor::Tensor* keys_ = nullptr;
  const tensor::Tensor* finals_ = nullptr;
  tensor::Tensor embedded_, out_, bridge_out_, weights_, step_weights_;
  std::vector<attention::AttentionTape> attention_tapes_;  // one per chunk
  tensor::Tensor d_out_, d_emb_;
  const tensor::Tensor* d_weights_ = nullptr;  // [N, T, S] during backward(), or null
  tensor::Tensor d_weights_chunk_;

  // Search.
  int64_t rows_ = 0;
  int64_t search_step_ = 0;
  int64_t search_source_length_ = 0;
  tensor::Tensor emb_step_;
};

}  // namespace heed::model
