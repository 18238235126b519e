// Raffel & Ellis's long-term-memory experiment (2015, "Feed-Forward Networks with Attention Can
// Solve Some Long-Term Memory Problems", arXiv 1512.08756): is feed-forward attention pooling more
// than a dense layer over the sequence? Everything heed-pooling runs, set up as the authors'
// released code runs it (craffel/ff-attention: toy_problems/fixed_length_experiments.py,
// variable_length_experiments.py, layers.py; the generators: craffel/lstm_problems,
// lstm_problems.py); docs/studies/pooling.md lists each choice with its file.
//
// Task (lstm_problems.gen_masked_sequences). Each step has two inputs: a random value and a
// marker. A batch is padded to max_length steps; each sequence's length is drawn uniformly in
// [min_length, max_length) (all min_length when the two are equal; fixed-length experiments use
// max_length = ceil(1.1·T₀)); values past a sequence's end are 0. The marker is −1 at the first
// and the last step of the sequence and 1 at two steps: N₁ uniform in [1, 9] and N₂ uniform in
// [1, int(max_length/2 − 1)), moved one step on when it equals N₁. Addition: values uniform in
// [−1, 1], target 0.5 + (x₁ + x₂)/4; multiplication: values uniform in [0, 1], target x₁·x₂.
//
// Models (the experiment scripts). h_t = leaky(W_s x_t + b_s) of width 100 at every step of the
// padded batch (the authors' layers take no mask); a pooling of h_1..h_T into one vector c;
// s = leaky(W_h c + b_h) of width 100; y = leaky(w_o·s + b_o). He-normal weights as Lasagne
// draws them (std = √(1/fan_in)), the attention's w from N(0, 1/√W), biases 0. The poolings:
//   ff-pool             c = Σ α_t h_t, α = softmax(tanh(w·h_t + b))          (the paper's)
//   ff-pool-linear      the same without the tanh: unbounded scores
//   ff-pool-scaled      α = softmax(β·tanh(w·h_t + b)), β learned (from 1): a temperature
//   ff-pool-fixed-S     the same with β fixed at S: the tanh's cap on the scores, e^2S between
//                       two steps' weights, set by hand (ff-pool is S = 1)
//   ff-pool-positional  α = softmax(tanh(w·h_t + b_t)), one bias per position (Keras-style)
//   mean                c = (1/T) Σ h_t                                       (the paper's
//   baseline) dense               c = [h_1; …; h_T]: W_h is a dense layer over the flattened
//   sequence dense-mean          c = (1/T) Σ leaky(W_d h_t + b_d): a dense layer at every step,
//   then mean
// The attention and mean poolings run fused and streaming (streaming_pool.h); the unfused path
// (heed's FeedForwardPool over a stored [T, N, W]) is kept as the reference it is checked
// against and for the speed comparison.
// Loss: mean squared error; Adam (β 0.9, 0.999).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "heed/common/rng.h"
#include "heed/layers/parameters.h"
#include "heed/onednn/linear.h"
#include "heed/tensor/tensor.h"
#include "streaming_pool.h"

namespace heed::pooling {

enum class PoolingProblem { kAddition, kMultiplication };
PoolingProblem parse_pooling_problem(const std::string& name);  // "addition" | "multiplication"
std::string to_string(PoolingProblem problem);

enum class PoolingKind {
  kFeedForwardAttention,
  kFeedForwardLinear,
  kFeedForwardScaled,
  kFeedForwardFixedScale,
  kFeedForwardPositional,
  kMean,
  kDense,
  kDenseMean
};
// "ff-pool" | "mean" | "dense" | …; "ff-pool-fixed-S" also gives S (in (0, 20]) in fixed_scale.
PoolingKind parse_pooling_kind(const std::string& name, float* fixed_scale = nullptr);
std::string to_string(PoolingKind kind);  // ff-pool-fixed-S: that, with the letter S
// The name a row gives the model: to_string(kind), with ff-pool-fixed-S's S filled in.
std::string model_name(PoolingKind kind, float fixed_scale);
// Every kind's name, in the order above.
std::vector<std::string> pooling_kind_names();

struct PoolingTask {
  PoolingProblem problem = PoolingProblem::kAddition;
  int64_t min_length = 50;  // T₀
  int64_t max_length = 0;   // the padded length; 0: ceil(1.1·T₀), the fixed-length experiments'
  // Where N₂ may fall, [begin, end); end 0: int(max_length/2 − 1), the authors' range. The
  // generalisation runs restrict it in training and test elsewhere.
  int64_t second_marker_begin = 1;
  int64_t second_marker_end = 0;

  int64_t padded_length() const;                            // max_length, resolved
  std::pair<int64_t, int64_t> second_marker_range() const;  // resolved
  void validate() const;                                    // ConfigError naming what is wrong
};

// The fixed-length experiments' task at T₀ = length.
PoolingTask fixed_length_task(PoolingProblem problem, int64_t length);

struct PoolingBatch {
  tensor::Tensor inputs;                       // [T, N, 2] time-major: value, marker; T padded
  std::vector<int64_t> lengths;                // [N], each sequence's own length
  std::vector<std::array<int64_t, 2>> marked;  // [N] N₁ and N₂
  std::vector<float> targets;                  // [N]
};

// The target of two marked values: 0.5 + (x₁ + x₂)/4 (addition), x₁·x₂ (multiplication).
float pooling_target(PoolingProblem problem, float x1, float x2);

// count sequences of task, drawn from rng.
PoolingBatch make_pooling_batch(const PoolingTask& task, int64_t count, Rng& rng);

class PoolingModel {
 public:
  // length is the longest padded T the model will see (dense: the only one; positional: one
  // bias per position); width the hidden size (100 in the paper). Weights drawn from
  // init_rng. fused: the streaming front end (ff-pool, mean; the other ff-pool kinds have only
  // that); false: the unfused reference, which stores [T, N, W].
  // fixed_scale: ff-pool-fixed-S's S (> 0), unused by the other kinds.
  PoolingModel(PoolingKind kind, int64_t length, int64_t width, Rng& init_rng, bool fused = true,
               float fixed_scale = 0);
  ~PoolingModel();

  PoolingKind kind() const { return kind_; }
  layers::ParameterStore& parameters() { return store_; }
  int64_t parameter_count() const { return store_.numel(); }
  // The same without building the model (the dense one grows with T).
  static int64_t count_parameters(PoolingKind kind, int64_t length, int64_t width);

  // predictions [N] for batch (padded to at most the model's length).
  void forward(const PoolingBatch& batch, std::vector<float>& predictions);
  // After forward(): accumulates the parameter gradients of Σ d_predictions[n] · y[n].
  void backward(const std::vector<float>& d_predictions);
  // Call after every in-place update of the parameters.
  void weights_changed();
  // The attention weights α [N, T] of the last forward (fused attention kinds only).
  std::vector<float> attention_weights() const;

 private:
  class Unfused;
  StreamingPoolWeights front_weights() const;

  PoolingKind kind_;
  int64_t length_, width_;
  layers::ParameterStore store_;
  layers::Parameter& step_weight_;
  layers::Parameter& step_bias_;
  layers::Parameter* score_weight_ = nullptr;  // attention kinds
  layers::Parameter* score_bias_ = nullptr;
  layers::Parameter* score_scale_ = nullptr;  // ff-pool-scaled
  float fixed_scale_ = 0;                     // ff-pool-fixed-S: its S, never updated
  float fixed_scale_grad_ = 0;                // where the front end adds S's gradient, unused
  std::unique_ptr<StreamingPool> front_;      // fused
  std::unique_ptr<Unfused> unfused_;          // dense, dense-mean, or the reference path
  layers::Parameter& hidden_weight_;
  layers::Parameter& hidden_bias_;
  layers::Parameter& output_weight_;
  layers::Parameter& output_bias_;
  onednn::Linear hidden_, output_;
  // Activations of the last forward, kept for backward.
  const PoolingBatch* batch_ = nullptr;
  tensor::Tensor pooled_;      // [N, pooled width]
  tensor::Tensor hidden_out_;  // [N, W]
  tensor::Tensor y_;           // [N, 1], after the output's leaky ReLU
  tensor::Tensor d_y_, d_hidden_, d_pooled_;
};

// Mean squared error of predictions against batch.targets, and (when d_predictions is not
// null) its gradient with respect to the predictions.
double mean_squared_error(const std::vector<float>& predictions, const std::vector<float>& targets,
                          std::vector<float>* d_predictions);

// One training run at one learning rate, as fixed_length_experiments.py runs it: batches of
// 100, a held-out set of 10 batches of 100 drawn once, tested every 1,000 updates, stopped when
// every held-out prediction is within 0.04 of its target, at the update budget, on a non-finite
// loss or parameter, or once it has used `stop_after` updates without solving (the authors skip
// the rest of a learning rate's run once it needs more updates than the best earlier rate).
struct PoolingRunConfig {
  PoolingTask task;
  // Variable-length training (variable_length_experiments.py): each batch one length drawn
  // uniformly in [variable_min, variable_max] (inclusive), no padding; the held-out set is 100
  // batches of 10 at lengths linspace(variable_min, variable_max, 100). 0: fixed (task).
  int64_t variable_min = 0, variable_max = 0;
  // Further held-out sets from other tasks (longer sequences, other marker positions) for the
  // generalisation runs; scored once, at the end.
  std::vector<PoolingTask> transfer_tasks;
  PoolingKind kind = PoolingKind::kFeedForwardAttention;
  float fixed_scale = 0;  // ff-pool-fixed-S's S
  bool fused = true;
  int64_t width = 100;
  int64_t batch_size = 100;
  float learning_rate = 1e-3f;
  int64_t eval_batches = 10;  // held-out batches of batch_size (fixed length)
  int64_t eval_every = 1000;  // updates between tests
  int64_t budget_steps = 100000;
  int64_t stop_after = 0;      // 0: no earlier rate's bar
  double tolerance = 0.04;     // a prediction is right when |error| < tolerance
  double solved_fraction = 1;  // solved when this fraction of the held-out set is right
  std::uint64_t seed = 1;

  bool variable() const { return variable_max > 0; }
  int64_t longest() const;  // the longest padded length any batch has
  // The longest sequence the model sees: its own batches' or a held-out set's.
  int64_t model_length() const;
  void validate() const;
};

// Why run's model cannot run as configured ("" when it can): dense has one weight per position
// and takes one length only, so neither variable lengths nor a held-out set of another length.
std::string not_applicable_reason(const PoolingRunConfig& run);

struct PoolingRunResult {
  bool solved = false;
  int64_t steps_to_solve = -1;            // the test that first met the rule
  int64_t steps = 0;                      // updates taken
  double accuracy = 0;                    // held-out fraction right at the last test
  double best_accuracy = 0;               // the best test (the authors' CSV reports it)
  double mse = 0;                         // held-out mean squared error at the last test
  bool diverged = false;                  // stopped on a non-finite value
  std::vector<double> transfer_accuracy;  // one per transfer task (none when it diverged)
  // ff-pool-positional: the learned score bias b_t of every position t the model has, after
  // training (the Keras-style layer's positional prior). Empty for the other kinds.
  std::vector<float> positional_bias;
  // The attention kinds (fused), after training: the mean over the held-out sequences of the
  // weight α at the two marked steps, and the mean of the most the score's bound allows them:
  // the scores lie in [−s, s] (tanh: s = 1; ff-pool-scaled: s its learned scale; ff-pool-fixed-S:
  // S), so two steps
  // hold at most 2e^2s / (2e^2s + T − 2) of T padded steps; NaN where nothing bounds the
  // scores (ff-pool-linear). −1: not measured (no attention, unfused, or diverged).
  double marked_weight = -1, marked_bound = -1;
  int64_t parameters = 0;
  double seconds = 0;  // wall clock, for cost only: no rule depends on it
};

struct PoolingProgress {
  int64_t step = 0;
  double seconds = 0;
  double accuracy = -1;  // the latest test's (-1 before the first)
  double train_mse = 0;  // of the last batch
};

// Stopping a run and continuing it (heed-pooling -o FILE keeps FILE.checkpoint): with a path,
// the run saves its whole state there every `every` updates and when a stop is requested
// (SIGINT, SIGTERM once it trains: train::GracefulStop; it then throws Interrupted; before, with
// nothing to save, they end the process at once), and a run whose key matches the checkpoint's
// continues from it, bit for bit the run it would have been. The checkpoint is sealed with the
// checksums of model files: a changed byte, or weights that are not finite, are refused.
struct PoolingCheckpoint {
  std::string path;  // "" = none
  std::string key;   // the run's identity (task, T, model, rate, budget, bar, seed, …)
  int64_t every = 1000;
};

// Trains a fresh model (or continues checkpoint's) until a stop rule holds, testing every
// eval_every updates and once at the end. on_step (may be empty) is called after every update.
PoolingRunResult run_pooling(const PoolingRunConfig& config,
                             const std::function<void(const PoolingProgress&)>& on_step = {},
                             const PoolingCheckpoint& checkpoint = {});

// Fraction of predictions within tolerance of targets, and their MSE, over every held-out batch.
struct PoolingScore {
  double accuracy = 0;
  double mse = 0;
};
PoolingScore evaluate_pooling(PoolingModel& model, const std::vector<PoolingBatch>& held_out,
                              double tolerance);

}  // namespace heed::pooling
