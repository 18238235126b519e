// The decoder: target embeddings → RNN stack with attention over the encoder states, in one of
// two arrangements (docs/attention.md):
//  - Luong: query = current top state h_t; h̃_t = tanh(W_c [c_t; h_t]); input feeding
//    optional. Without input feeding nothing depends on the previous output, so under teacher
//    forcing the RNN stack runs over all T steps in one primitive call per layer and the
//    attention is one batched product for all steps (the "fast path"); otherwise it steps.
//  - Bahdanau: query = previous top state s_{t−1}; [emb; c_t] is the RNN input; output s_t.
// Initial states: the bridge tanh(W_b·finals + b_b) (one H-slice per layer; cell states 0), or
// zeros.
//
// Teacher forcing (training, scoring, forced alignment) is forward()/backward(); search uses
// begin()/step()/select() on rows that are live hypotheses.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "heed/attention/attention.h"
#include "heed/common/rng.h"
#include "heed/layers/dropout.h"
#include "heed/layers/parameters.h"
#include "heed/model/config.h"
#include "heed/onednn/linear.h"
#include "heed/onednn/precision.h"
#include "heed/onednn/rnn.h"
#include "heed/tensor/tensor.h"

namespace heed::model {

class Decoder {
 public:
  Decoder(const ModelConfig& config, onednn::Precision precision, layers::ParameterStore& store);
  ~Decoder();

  void weights_changed();
  attention::Attention& attention() { return *attention_; }
  // True when teacher forcing runs the whole target in one call (Luong without input feeding).
  bool fast_path() const;
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
  // d_out [T, N, H] → d_keys [S, N, K] (overwritten) and d_finals [N, K] (overwritten; untouched
  // with a zero bridge). Parameter gradients accumulate into the store.
  void backward(const tensor::Tensor& d_out, tensor::Tensor& d_keys, tensor::Tensor& d_finals);

  // Search: rows = sentences at first.
  void begin(const tensor::Tensor& keys, const std::vector<int64_t>& src_lengths,
             const tensor::Tensor& finals);
  // Row i continues old row rows[i].
  void select(const std::vector<int64_t>& rows);
  // One step for every row: out [rows, H] (the vector the output layer projects), weights
  // [rows, 1, S] when not null.
  void step(const int32_t* tokens, tensor::Tensor& out, tensor::Tensor* weights);

 private:
  void run_layers(size_t chunk, int64_t t0, int64_t t1, const tensor::Tensor& x0, bool training);
  void backward_layers(size_t chunk, tensor::Tensor& d_top, tensor::Tensor& dx0);
  void initial_states(const tensor::Tensor& finals, int64_t n, std::vector<tensor::Tensor>& h,
                      std::vector<tensor::Tensor>& c);

  bool luong_;
  bool input_feeding_;
  bool lstm_;
  bool force_stepping_ = false;
  int layers_count_;
  int64_t embed_, hidden_, context_;
  layers::ParameterStore* store_;
  layers::Parameter* embedding_;
  std::vector<onednn::Rnn> rnns_;
  std::unique_ptr<attention::Attention> attention_;
  std::unique_ptr<onednn::Linear> attn_out_;  // Luong only
  std::unique_ptr<onednn::Linear> bridge_;    // dense bridge only
  layers::Dropout dropout_embed_;
  layers::Dropout dropout_out_;

  // Teacher forcing state.
  const int32_t* tgt_in_ = nullptr;
  std::vector<int64_t> tgt_lengths_;
  int64_t n_ = 0, t_ = 0, s_ = 0;
  const tensor::Tensor* finals_ = nullptr;
  tensor::Tensor embedded_, xin_, ctx_, concat_, ht_, out_, bridge_out_, weights_, step_weights_;
  std::vector<tensor::Tensor> hs_, cs_;              // per layer [T+1, N, H]
  std::vector<std::vector<onednn::RnnTape>> tapes_;  // [chunk][layer]
  std::vector<attention::AttentionTape> attention_tapes_;
  size_t chunks_ = 0;
  // Backward scratch.
  tensor::Tensor d_out_, d_emb_, d_feed_, d_pre_, d_concat_, d_top_, d_ctx_, d_q_, dx0_;
  tensor::Tensor d_bridge_;
  std::vector<tensor::Tensor> dh_, dc_, dh_tmp_, dc_tmp_, d_mid_;

  // Search state.
  int64_t rows_ = 0;
  int64_t search_source_length_ = 0;
  std::vector<tensor::Tensor> h_, c_, h_next_, c_next_;
  tensor::Tensor feed_, x_step_, ctx_step_, concat_step_, scratch_;
};

}  // namespace heed::model
