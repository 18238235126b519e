// Raffel & Ellis's long-term-memory experiment (2015, "Feed-Forward Networks with Attention Can
// Solve Some Long-Term Memory Problems"): is feed-forward attention pooling more than a dense
// layer over the sequence? Everything heed-pooling runs: the task generator, three models that
// differ only in how they pool, and the training loop with its stop rules (docs/attention.md).
//
// Task. A sequence of T steps, each two inputs: a random value and a marker, 1 at exactly two
// steps (one uniformly in the first half, one in the second) and 0 elsewhere. The target is the
// sum of the two marked values (addition: values uniform in [-1, 1]) or their product
// (multiplication: values uniform in [0, 1]). With variable length, each sequence's length is
// drawn uniformly in [ceil(T/2), T] and the halves are those of its own length; steps past it
// are zero.
//
// Models. h_t = leaky(W_s x_t + b_s) of width 100 at every step; a pooling of h_1..h_T into
// one vector c; s = leaky(W_h c + b_h) of width 100; y = w_o·s + b_o. The poolings:
//   ff-pool  c = Σ α_t h_t, α = softmax(tanh(w·h_t + b))   (attention::FeedForwardPool)
//   mean     c = (1/T) Σ h_t
//   dense    c = [h_1; …; h_T], so W_h is a dense layer over the flattened sequence (fixed T only)
// Loss: mean squared error; Adam; glorot-uniform weights, zero biases.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "heed/common/rng.h"
#include "heed/layers/parameters.h"
#include "heed/onednn/linear.h"
#include "heed/tensor/tensor.h"

namespace heed::pooling {

enum class PoolingProblem { kAddition, kMultiplication };
PoolingProblem parse_pooling_problem(const std::string& name);  // "addition" | "multiplication"
std::string to_string(PoolingProblem problem);

enum class PoolingKind { kFeedForwardAttention, kMean, kDense };
PoolingKind parse_pooling_kind(const std::string& name);  // "ff-pool" | "mean" | "dense"
std::string to_string(PoolingKind kind);

struct PoolingTask {
  PoolingProblem problem = PoolingProblem::kAddition;
  int64_t length = 50;  // T: every sequence's length, or the longest with variable_length
  bool variable_length = false;
  void validate() const;  // ConfigError for length < 2
};

struct PoolingBatch {
  tensor::Tensor inputs;                       // [T, N, 2] time-major: value, marker
  std::vector<int64_t> lengths;                // [N], each in [1, T]
  std::vector<std::array<int64_t, 2>> marked;  // [N] the two marked steps, ascending
  std::vector<float> targets;                  // [N]
};

// count sequences of task, drawn from rng.
PoolingBatch make_pooling_batch(const PoolingTask& task, int64_t count, Rng& rng);

// Why kind cannot run task at all ("" when it can): dense needs one fixed length.
std::string not_applicable_reason(PoolingKind kind, const PoolingTask& task);

class Pooling;

class PoolingModel {
 public:
  // length is T (the flattened input of dense); width the hidden size (100 in the paper).
  // Weights drawn from init_rng.
  PoolingModel(PoolingKind kind, int64_t length, int64_t width, Rng& init_rng);
  ~PoolingModel();

  PoolingKind kind() const { return kind_; }
  layers::ParameterStore& parameters() { return store_; }
  int64_t parameter_count() const { return store_.numel(); }
  // The same without building the model (the dense one grows with T).
  static int64_t count_parameters(PoolingKind kind, int64_t length, int64_t width);

  // predictions [N] for batch (all of its sequences no longer than the model's length).
  void forward(const PoolingBatch& batch, std::vector<float>& predictions);
  // After forward(): accumulates the parameter gradients of Σ d_predictions[n] · y[n].
  void backward(const std::vector<float>& d_predictions);
  // Call after every in-place update of the parameters.
  void weights_changed();

 private:
  PoolingKind kind_;
  int64_t width_;
  layers::ParameterStore store_;
  layers::Parameter& step_weight_;
  layers::Parameter& step_bias_;
  std::unique_ptr<Pooling> pooling_;
  layers::Parameter& hidden_weight_;
  layers::Parameter& hidden_bias_;
  layers::Parameter& output_weight_;
  layers::Parameter& output_bias_;
  onednn::Linear step_, hidden_, output_;
  // Activations of the last forward, kept for backward.
  const PoolingBatch* batch_ = nullptr;
  tensor::Tensor step_out_;    // [T, N, W] (the activation in place: T·N·W is 10^8 at T = 10^4)
  tensor::Tensor pooled_;      // [N, pooled width]
  tensor::Tensor hidden_out_;  // [N, W]
  tensor::Tensor y_;           // [N, 1]
  tensor::Tensor d_y_, d_hidden_, d_pooled_, d_step_;
};

// Mean squared error of predictions against batch.targets, and (when d_predictions is not
// null) its gradient with respect to the predictions.
double mean_squared_error(const std::vector<float>& predictions, const std::vector<float>& targets,
                          std::vector<float>* d_predictions);

struct PoolingRunConfig {
  PoolingTask task;
  PoolingKind kind = PoolingKind::kFeedForwardAttention;
  int64_t width = 100;
  int64_t batch_size = 100;
  float learning_rate = 1e-3f;
  int64_t eval_size = 1000;  // held-out sequences, drawn once
  int64_t eval_every = 100;  // steps between evaluations
  // Stop rules: solved, or either budget spent (0 = no limit of that kind; not both 0).
  int64_t budget_steps = 0;
  double budget_seconds = 0;
  double tolerance = 0.04;        // a prediction is right when |error| < tolerance
  double solved_fraction = 0.99;  // solved when this fraction of the held-out set is right
  std::uint64_t seed = 1;
  void validate() const;
};

struct PoolingRunResult {
  bool solved = false;
  int64_t steps_to_solve = -1;  // the evaluation step that first met the rule
  int64_t steps = 0;            // training steps taken
  double accuracy = 0;          // fraction of the held-out set right at the last evaluation
  double mse = 0;               // held-out mean squared error at the last evaluation
  int64_t parameters = 0;
  double seconds = 0;
};

struct PoolingProgress {
  int64_t step = 0;
  double seconds = 0;
  double accuracy = -1;  // the latest evaluation's (-1 before the first)
  double train_mse = 0;  // of the last batch
};

// Trains a fresh model on task until solved or out of budget, evaluating every eval_every
// steps and once at the end. on_step (may be empty) is called after every step.
PoolingRunResult run_pooling(const PoolingRunConfig& config,
                             const std::function<void(const PoolingProgress&)>& on_step = {});

// Fraction of predictions within tolerance of targets, and their MSE, over the whole set in
// batches of batch_size.
struct PoolingScore {
  double accuracy = 0;
  double mse = 0;
};
PoolingScore evaluate_pooling(PoolingModel& model, const std::vector<PoolingBatch>& held_out,
                              double tolerance);

}  // namespace heed::pooling
