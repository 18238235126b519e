#include "task.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <tuple>

#include "heed/attention/feed_forward_pool.h"
#include "heed/common/check.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/common/timer.h"
#include "heed/io/safetensors.h"
#include "heed/train/optimizer.h"
#include "heed/train/signals.h"
#include "leaky_relu.h"

namespace heed::pooling {

using tensor::Shape;
using tensor::Tensor;

PoolingProblem parse_pooling_problem(const std::string& name) {
  if (name == "addition") return PoolingProblem::kAddition;
  if (name == "multiplication") return PoolingProblem::kMultiplication;
  throw ConfigError("unknown task '" + name + "' (addition or multiplication)");
}

std::string to_string(PoolingProblem problem) {
  return problem == PoolingProblem::kAddition ? "addition" : "multiplication";
}

namespace {

struct KindName {
  PoolingKind kind;
  const char* name;
};
constexpr KindName kKindNames[] = {
    {PoolingKind::kFeedForwardAttention, "ff-pool"},
    {PoolingKind::kFeedForwardLinear, "ff-pool-linear"},
    {PoolingKind::kFeedForwardScaled, "ff-pool-scaled"},
    {PoolingKind::kFeedForwardFixedScale, "ff-pool-fixed-S"},
    {PoolingKind::kFeedForwardPositional, "ff-pool-positional"},
    {PoolingKind::kMean, "mean"},
    {PoolingKind::kDense, "dense"},
    {PoolingKind::kDenseMean, "dense-mean"},
};

// The fused front end's score for kind, or nothing (dense, dense-mean).
std::optional<ScoreKind> score_kind(PoolingKind kind) {
  switch (kind) {
    case PoolingKind::kFeedForwardAttention:
      return ScoreKind::kTanh;
    case PoolingKind::kFeedForwardLinear:
      return ScoreKind::kLinear;
    case PoolingKind::kFeedForwardScaled:
    case PoolingKind::kFeedForwardFixedScale:
      return ScoreKind::kScaledTanh;
    case PoolingKind::kFeedForwardPositional:
      return ScoreKind::kPositionalTanh;
    case PoolingKind::kMean:
      return ScoreKind::kMean;
    case PoolingKind::kDense:
    case PoolingKind::kDenseMean:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

constexpr char kFixedScalePrefix[] = "ff-pool-fixed-";

PoolingKind parse_pooling_kind(const std::string& name, float* fixed_scale) {
  if (starts_with(name, kFixedScalePrefix)) {
    const std::string text = name.substr(sizeof kFixedScalePrefix - 1);
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    // Checked as the float it is kept in: 1e-320 is a positive double but a float 0.
    if (text.empty() || *end != '\0' || !(float(value) > 0) || value > 20) {
      throw ConfigError("model '" + name + "': S in ff-pool-fixed-S must be a number in (0, 20]");
    }
    if (fixed_scale) *fixed_scale = float(value);
    return PoolingKind::kFeedForwardFixedScale;
  }
  for (const KindName& k : kKindNames) {
    if (name == k.name && k.kind != PoolingKind::kFeedForwardFixedScale) return k.kind;
  }
  throw ConfigError("unknown model '" + name + "' (" + join(pooling_kind_names(), ", ") + ")");
}

std::string to_string(PoolingKind kind) {
  for (const KindName& k : kKindNames) {
    if (kind == k.kind) return k.name;
  }
  return "?";
}

std::string model_name(PoolingKind kind, float fixed_scale) {
  if (kind != PoolingKind::kFeedForwardFixedScale) return to_string(kind);
  char scale[32];
  std::snprintf(scale, sizeof scale, "%g", double(fixed_scale));
  return kFixedScalePrefix + std::string(scale);
}

std::vector<std::string> pooling_kind_names() {
  std::vector<std::string> names;
  for (const KindName& k : kKindNames) names.emplace_back(k.name);
  return names;
}

int64_t PoolingTask::padded_length() const {
  return max_length > 0 ? max_length : (min_length * 11 + 9) / 10;  // ceil(1.1·T₀), exactly
}

std::pair<int64_t, int64_t> PoolingTask::second_marker_range() const {
  // int(max_length/2 − 1) in Python: floor for the positive values it takes here.
  const int64_t end = second_marker_end > 0 ? second_marker_end : padded_length() / 2 - 1;
  return {second_marker_begin, end};
}

void PoolingTask::validate() const {
  const int64_t padded = padded_length();
  if (min_length < 12) {
    throw ConfigError(
        "sequence length must be at least 12 (N₁ in [1, 9], the end marker after it)");
  }
  if (padded < min_length) throw ConfigError("the padded length is below the minimum length");
  const auto [begin, end] = second_marker_range();
  // N₂ (and N₂ + 1 on a collision) must fall inside the shortest sequence, before its last step.
  if (begin < 1 || end <= begin || end > min_length - 2) {
    throw ConfigError("the second marker's range [" + std::to_string(begin) + ", " +
                      std::to_string(end) + ") must lie in [1, " + std::to_string(min_length - 2) +
                      ")");
  }
}

PoolingTask fixed_length_task(PoolingProblem problem, int64_t length) {
  PoolingTask task;
  task.problem = problem;
  task.min_length = length;
  return task;
}

float pooling_target(PoolingProblem problem, float x1, float x2) {
  return problem == PoolingProblem::kAddition ? 0.5f + (x1 + x2) / 4.f : x1 * x2;
}

PoolingBatch make_pooling_batch(const PoolingTask& task, int64_t count, Rng& rng) {
  task.validate();
  const int64_t padded = task.padded_length();
  PoolingBatch batch;
  batch.inputs = Tensor(Shape{padded, count, 2});
  batch.inputs.zero();
  batch.lengths.resize(size_t(count));
  batch.marked.resize(size_t(count));
  batch.targets.resize(size_t(count));
  const bool addition = task.problem == PoolingProblem::kAddition;
  std::uniform_real_distribution<float> value(addition ? -1.f : 0.f, 1.f);
  // np.random.randint(min, max): max excluded.
  std::uniform_int_distribution<int64_t> length(task.min_length,
                                                std::max(task.min_length, padded - 1));
  std::uniform_int_distribution<int64_t> first(1, 9);
  const auto [second_begin, second_end] = task.second_marker_range();
  std::uniform_int_distribution<int64_t> second(second_begin, second_end - 1);
  float* x = batch.inputs.data();
  const auto at = [&](int64_t t, int64_t n) { return x + (t * count + n) * 2; };
  for (int64_t n = 0; n < count; ++n) {
    const int64_t len = padded == task.min_length ? padded : length(rng);
    for (int64_t t = 0; t < len; ++t) at(t, n)[0] = value(rng);
    const int64_t n1 = first(rng);
    int64_t n2 = second(rng);
    if (n2 == n1) ++n2;
    at(0, n)[1] = -1.f;
    at(len - 1, n)[1] = -1.f;
    at(n1, n)[1] = 1.f;
    at(n2, n)[1] = 1.f;
    const float a = at(n1, n)[0], b = at(n2, n)[0];
    batch.lengths[size_t(n)] = len;
    batch.marked[size_t(n)] = {n1, n2};
    batch.targets[size_t(n)] = pooling_target(task.problem, a, b);
  }
  return batch;
}

std::string not_applicable_reason(const PoolingRunConfig& run) {
  if (run.kind != PoolingKind::kDense) return "";
  const std::string why =
      "a dense layer over the flattened sequence has one weight per position: it takes one "
      "fixed length";
  if (run.variable()) return why;
  for (const PoolingTask& transfer : run.transfer_tasks) {
    if (transfer.padded_length() != run.task.padded_length()) {
      return why + ", not the T = " + std::to_string(transfer.min_length) + " of a held-out set";
    }
  }
  return "";
}

// The unfused models: the step layer over the whole padded batch into a stored [T, N, W], then
// a pooling. dense and dense-mean run only this way; ff-pool and mean also, as the reference the
// fused front end is checked against.
class PoolingModel::Unfused {
 public:
  Unfused(PoolingKind kind, int64_t length, int64_t width, layers::ParameterStore& store)
      : kind_(kind), length_(length), width_(width), step_(2, width) {
    if (kind == PoolingKind::kFeedForwardAttention) {
      pool_ = std::make_unique<attention::FeedForwardPool>(width, store, "pool/");
    } else if (kind == PoolingKind::kDenseMean) {
      per_step_weight_ = &store.add("per_step/weight", Shape{width, width});
      per_step_bias_ = &store.add("per_step/bias", Shape{width});
      per_step_.emplace(width, width);
    } else if (kind != PoolingKind::kMean && kind != PoolingKind::kDense) {
      throw ConfigError(to_string(kind) + " runs fused only");
    }
  }

  int64_t output_width() const { return kind_ == PoolingKind::kDense ? length_ * width_ : width_; }

  void set_weights(const layers::Parameter& step_weight, const layers::Parameter& step_bias) {
    step_weight_ = &step_weight;
    step_bias_ = &step_bias;
    weights_changed();
  }
  void weights_changed() {
    step_.set_weights(step_weight_->value, &step_bias_->value);
    if (per_step_) per_step_->set_weights(per_step_weight_->value, &per_step_bias_->value);
  }

  void forward(const Tensor& inputs, Tensor& pooled) {
    const int64_t steps = inputs.dim(0), count = inputs.dim(1), w = width_;
    HEED_CHECK(kind_ != PoolingKind::kDense || steps == length_, "dense pooling: sequence length");
    step_out_.resize(Shape{steps, count, w});
    step_.forward(inputs, step_out_);
    leaky_relu(step_out_.data(), step_out_.data(), step_out_.numel());
    const Tensor* h = &step_out_;
    if (per_step_) {
      per_step_out_.resize(step_out_.shape());
      per_step_->forward(step_out_, per_step_out_);
      leaky_relu(per_step_out_.data(), per_step_out_.data(), per_step_out_.numel());
      h = &per_step_out_;
    }
    switch (kind_) {
      case PoolingKind::kFeedForwardAttention:
        pool_->forward(*h, std::vector<int64_t>(size_t(count), steps), pooled);
        break;
      case PoolingKind::kDense:
        pooled.resize(Shape{count, steps * w});
        for (int64_t t = 0; t < steps; ++t) {
          for (int64_t n = 0; n < count; ++n) {
            std::memcpy(pooled.data() + (n * steps + t) * w, h->data() + (t * count + n) * w,
                        size_t(w) * sizeof(float));
          }
        }
        break;
      default:  // mean, dense-mean; time-major like h itself: sums first, then the scale
        pooled.resize(Shape{count, w});
        pooled.zero();
        for (int64_t t = 0; t < steps; ++t) {
          const float* row = h->data() + t * count * w;
          for (int64_t i = 0; i < count * w; ++i) pooled.data()[i] += row[i];
        }
        for (int64_t i = 0; i < count * w; ++i) pooled.data()[i] /= float(steps);
    }
  }

  void backward(const Tensor& inputs, const Tensor& d_pooled, layers::Parameter& step_weight,
                layers::Parameter& step_bias) {
    const int64_t steps = inputs.dim(0), count = inputs.dim(1), w = width_;
    d_h_.resize(Shape{steps, count, w});
    d_h_.zero();
    switch (kind_) {
      case PoolingKind::kFeedForwardAttention:
        pool_->backward(d_pooled, d_h_);
        break;
      case PoolingKind::kDense:
        for (int64_t t = 0; t < steps; ++t) {
          for (int64_t n = 0; n < count; ++n) {
            std::memcpy(d_h_.data() + (t * count + n) * w, d_pooled.data() + (n * steps + t) * w,
                        size_t(w) * sizeof(float));
          }
        }
        break;
      default:
        for (int64_t t = 0; t < steps; ++t) {
          float* row = d_h_.data() + t * count * w;
          for (int64_t i = 0; i < count * w; ++i) row[i] = d_pooled.data()[i] / float(steps);
        }
    }
    if (per_step_) {
      leaky_relu_backward(per_step_out_.data(), d_h_.data(), d_h_.data(), d_h_.numel());
      d_step_.resize(d_h_.shape());
      per_step_->backward(step_out_, d_h_, &d_step_, per_step_weight_->grad, &per_step_bias_->grad);
      std::swap(d_h_, d_step_);
    }
    leaky_relu_backward(step_out_.data(), d_h_.data(), d_h_.data(), d_h_.numel());
    step_.backward_weights(inputs, d_h_, step_weight.grad, &step_bias.grad);
  }

 private:
  PoolingKind kind_;
  int64_t length_, width_;
  onednn::Linear step_;
  std::optional<onednn::Linear> per_step_;
  std::unique_ptr<attention::FeedForwardPool> pool_;
  const layers::Parameter* step_weight_ = nullptr;
  const layers::Parameter* step_bias_ = nullptr;
  layers::Parameter* per_step_weight_ = nullptr;
  layers::Parameter* per_step_bias_ = nullptr;
  Tensor step_out_;      // [T, N, W] (the activation in place: 1.1·10⁸ floats at T = 10⁴)
  Tensor per_step_out_;  // dense-mean's second per-step layer
  Tensor d_h_, d_step_;
};

namespace {

// Lasagne's initialisers, as the experiment scripts ask for them: HeNormal (gain 1: std
// √(1/fan_in)) for every dense layer's weights [out, in], N(0, 1/√W) for the attention's w
// ("We must force He initialization"), biases (and the positional biases) 0, the scale 1.
void initialise(layers::ParameterStore& store, int64_t width, Rng& rng) {
  for (layers::Parameter* p : store.all()) {
    float* v = p->value.data();
    const int64_t n = p->value.numel();
    if (p->name == "pool/scale") {
      std::fill(v, v + n, 1.f);
      continue;
    }
    double std_dev = 0;
    if (p->value.rank() == 2) std_dev = std::sqrt(1.0 / double(p->value.dim(1)));
    if (p->name == "pool/w") std_dev = 1.0 / std::sqrt(double(width));
    if (std_dev == 0) continue;
    std::normal_distribution<float> normal(0.f, float(std_dev));
    for (int64_t i = 0; i < n; ++i) v[i] = normal(rng);
  }
}

}  // namespace

PoolingModel::PoolingModel(PoolingKind kind, int64_t length, int64_t width, Rng& init_rng,
                           bool fused, float fixed_scale)
    : kind_(kind),
      length_(length),
      width_(width),
      step_weight_(store_.add("step/weight", Shape{width, 2})),
      step_bias_(store_.add("step/bias", Shape{width})),
      hidden_weight_(store_.add(
          "hidden/weight", Shape{width, kind == PoolingKind::kDense ? length * width : width})),
      hidden_bias_(store_.add("hidden/bias", Shape{width})),
      output_weight_(store_.add("output/weight", Shape{1, width})),
      output_bias_(store_.add("output/bias", Shape{1})),
      hidden_(hidden_weight_.value.dim(1), width),
      output_(width, 1) {
  if (kind == PoolingKind::kFeedForwardFixedScale) {
    HEED_CHECK(fixed_scale > 0, "pooling model: ff-pool-fixed-S without S");
    fixed_scale_ = fixed_scale;
  }
  const std::optional<ScoreKind> score = score_kind(kind);
  if (score && fused) {
    front_ = std::make_unique<StreamingPool>(*score, width, length);
    if (front_->has_score()) {
      score_weight_ = &store_.add("pool/w", Shape{width});
      score_bias_ = &store_.add("pool/b", Shape{front_->score_bias_size()});
      if (kind == PoolingKind::kFeedForwardScaled) {
        score_scale_ = &store_.add("pool/scale", Shape{1});
      }
    }
  } else {
    unfused_ = std::make_unique<Unfused>(kind, length, width, store_);
    unfused_->set_weights(step_weight_, step_bias_);
  }
  initialise(store_, width, init_rng);
  weights_changed();
}

PoolingModel::~PoolingModel() = default;

int64_t PoolingModel::count_parameters(PoolingKind kind, int64_t length, int64_t width) {
  const int64_t pooled = kind == PoolingKind::kDense ? length * width : width;
  int64_t pooling = 0;
  switch (kind) {
    case PoolingKind::kFeedForwardAttention:
    case PoolingKind::kFeedForwardLinear:
    case PoolingKind::kFeedForwardFixedScale:
      pooling = width + 1;
      break;
    case PoolingKind::kFeedForwardScaled:
      pooling = width + 2;
      break;
    case PoolingKind::kFeedForwardPositional:
      pooling = width + length;
      break;
    case PoolingKind::kDenseMean:
      pooling = width * width + width;
      break;
    case PoolingKind::kMean:
    case PoolingKind::kDense:
      break;
  }
  // step [W, 2] + [W]; pooling; hidden [W, pooled] + [W]; output [1, W] + [1]
  return 3 * width + pooling + (pooled + 1) * width + width + 1;
}

StreamingPoolWeights PoolingModel::front_weights() const {
  StreamingPoolWeights w;
  w.width = width_;
  w.step_weight = step_weight_.value.data();
  w.step_bias = step_bias_.value.data();
  if (score_weight_) {
    w.score_weight = score_weight_->value.data();
    w.score_bias = score_bias_->value.data();
  }
  if (score_scale_) w.score_scale = score_scale_->value.data();
  if (kind_ == PoolingKind::kFeedForwardFixedScale) w.score_scale = &fixed_scale_;
  return w;
}

void PoolingModel::weights_changed() {
  if (unfused_) unfused_->weights_changed();
  hidden_.set_weights(hidden_weight_.value, &hidden_bias_.value);
  output_.set_weights(output_weight_.value, &output_bias_.value);
}

void PoolingModel::forward(const PoolingBatch& batch, std::vector<float>& predictions) {
  const int64_t steps = batch.inputs.dim(0), count = batch.inputs.dim(1);
  HEED_CHECK(steps <= length_, "pooling model: a batch longer than the model's length");
  batch_ = &batch;
  if (front_) {
    pooled_.resize(Shape{count, width_});
    front_->forward(front_weights(), batch.inputs.data(), steps, count,
                    std::vector<int64_t>(size_t(count), steps), pooled_.data());
  } else {
    unfused_->forward(batch.inputs, pooled_);
  }
  hidden_out_.resize(Shape{count, width_});
  hidden_.forward(pooled_, hidden_out_);
  leaky_relu(hidden_out_.data(), hidden_out_.data(), hidden_out_.numel());
  y_.resize(Shape{count, 1});
  output_.forward(hidden_out_, y_);
  leaky_relu(y_.data(), y_.data(), y_.numel());
  predictions.assign(y_.data(), y_.data() + count);
}

void PoolingModel::backward(const std::vector<float>& d_predictions) {
  HEED_CHECK(batch_ != nullptr, "pooling model: backward before forward");
  const int64_t count = y_.dim(0);
  HEED_CHECK(int64_t(d_predictions.size()) == count, "pooling model: d_predictions size");
  d_y_.resize(Shape{count, 1});
  leaky_relu_backward(y_.data(), d_predictions.data(), d_y_.data(), count);
  d_hidden_.resize(hidden_out_.shape());
  output_.backward(hidden_out_, d_y_, &d_hidden_, output_weight_.grad, &output_bias_.grad);
  leaky_relu_backward(hidden_out_.data(), d_hidden_.data(), d_hidden_.data(), d_hidden_.numel());
  d_pooled_.resize(pooled_.shape());
  hidden_.backward(pooled_, d_hidden_, &d_pooled_, hidden_weight_.grad, &hidden_bias_.grad);
  if (front_) {
    StreamingPoolGrads grads;
    grads.step_weight = step_weight_.grad.data();
    grads.step_bias = step_bias_.grad.data();
    if (score_weight_) {
      grads.score_weight = score_weight_->grad.data();
      grads.score_bias = score_bias_->grad.data();
    }
    if (score_scale_) grads.score_scale = score_scale_->grad.data();
    if (kind_ == PoolingKind::kFeedForwardFixedScale) grads.score_scale = &fixed_scale_grad_;
    front_->backward(front_weights(), batch_->inputs.data(), pooled_.data(), d_pooled_.data(),
                     grads);
  } else {
    unfused_->backward(batch_->inputs, d_pooled_, step_weight_, step_bias_);
  }
}

std::vector<float> PoolingModel::attention_weights() const {
  HEED_CHECK(front_ && front_->has_score(), "pooling model: no attention weights");
  return front_->weights_of_last_forward(front_weights());
}

double mean_squared_error(const std::vector<float>& predictions, const std::vector<float>& targets,
                          std::vector<float>* d_predictions) {
  HEED_CHECK(predictions.size() == targets.size() && !targets.empty(), "mse: sizes");
  const double n = double(targets.size());
  double sum = 0;
  if (d_predictions) d_predictions->resize(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    const double error = double(predictions[i]) - double(targets[i]);
    sum += error * error;
    if (d_predictions) (*d_predictions)[i] = float(2.0 * error / n);
  }
  return sum / n;
}

int64_t PoolingRunConfig::longest() const {
  return variable() ? variable_max : task.padded_length();
}

int64_t PoolingRunConfig::model_length() const {
  int64_t length = longest();
  for (const PoolingTask& transfer : transfer_tasks) {
    length = std::max(length, transfer.padded_length());
  }
  return length;
}

void PoolingRunConfig::validate() const {
  if (width < 1 || batch_size < 1 || eval_batches < 1 || eval_every < 1 || budget_steps < 1) {
    throw ConfigError(
        "width, batch size, held-out batches, test interval and budget must be positive");
  }
  if (stop_after < 0) throw ConfigError("stop_after must not be negative");
  if (!(learning_rate > 0)) throw ConfigError("learning rate must be positive");
  if (!(tolerance > 0) || !(solved_fraction > 0 && solved_fraction <= 1)) {
    throw ConfigError("tolerance must be positive and the solved fraction in (0, 1]");
  }
  if (variable()) {
    if (variable_min < 12 || variable_max < variable_min) {
      throw ConfigError("variable lengths: need 12 ≤ minimum ≤ maximum");
    }
    PoolingTask shortest = task;
    shortest.min_length = shortest.max_length = variable_min;
    shortest.validate();
  } else {
    task.validate();
  }
  for (const PoolingTask& transfer : transfer_tasks) transfer.validate();
  if (const std::string reason = not_applicable_reason(*this); !reason.empty()) {
    throw ConfigError(to_string(kind) + ": " + reason);
  }
  if (!fused && kind != PoolingKind::kFeedForwardAttention && kind != PoolingKind::kMean &&
      kind != PoolingKind::kDense && kind != PoolingKind::kDenseMean) {
    throw ConfigError(model_name(kind, fixed_scale) + " runs fused only");
  }
  if (kind == PoolingKind::kFeedForwardFixedScale && !(fixed_scale > 0 && fixed_scale <= 20)) {
    throw ConfigError("ff-pool-fixed-S: S must be in (0, 20]");
  }
}

PoolingScore evaluate_pooling(PoolingModel& model, const std::vector<PoolingBatch>& held_out,
                              double tolerance) {
  int64_t right = 0, total = 0;
  double squared = 0;
  std::vector<float> predictions;
  for (const PoolingBatch& batch : held_out) {
    model.forward(batch, predictions);
    for (size_t i = 0; i < predictions.size(); ++i) {
      const double error = double(predictions[i]) - double(batch.targets[i]);
      if (std::fabs(error) < tolerance) ++right;
      squared += error * error;
    }
    total += int64_t(predictions.size());
  }
  return {double(right) / double(total), squared / double(total)};
}

namespace {

bool is_attention(PoolingKind kind) {
  return kind == PoolingKind::kFeedForwardAttention || kind == PoolingKind::kFeedForwardLinear ||
         kind == PoolingKind::kFeedForwardScaled || kind == PoolingKind::kFeedForwardFixedScale ||
         kind == PoolingKind::kFeedForwardPositional;
}

// The held-out mean of α at the two marked steps, and of the bound 2e^2s / (2e^2s + T − 2) on
// it for scores in [−s, s] (NaN for s NaN: no bound).
std::pair<double, double> marked_weight(PoolingModel& model,
                                        const std::vector<PoolingBatch>& held_out, double scale) {
  double weight = 0, bound = 0;
  int64_t sequences = 0;
  std::vector<float> predictions;
  for (const PoolingBatch& batch : held_out) {
    model.forward(batch, predictions);
    const std::vector<float> alpha = model.attention_weights();
    const int64_t n = int64_t(batch.lengths.size());
    const int64_t steps = int64_t(alpha.size()) / n;
    const double top = std::exp(2 * scale);
    for (int64_t i = 0; i < n; ++i) {
      const auto [first, second] = batch.marked[size_t(i)];
      weight +=
          double(alpha[size_t(i * steps + first)]) + double(alpha[size_t(i * steps + second)]);
      bound += 2 * top / (2 * top + double(steps - 2));
    }
    sequences += n;
  }
  return {weight / double(sequences), bound / double(sequences)};
}

// The task one variable-length batch of length `length` is drawn from: no padding.
PoolingTask exact_length(const PoolingTask& base, int64_t length) {
  PoolingTask task = base;
  task.min_length = task.max_length = length;
  return task;
}

std::vector<PoolingBatch> held_out_set(const PoolingRunConfig& config, Rng& rng) {
  std::vector<PoolingBatch> held_out;
  if (config.variable()) {
    // np.linspace(min, max, 100), each cast to int: 100 batches of 10.
    constexpr int64_t kBatches = 100, kPerBatch = 10;
    for (int64_t i = 0; i < kBatches; ++i) {
      const double at =
          double(config.variable_min) +
          double(config.variable_max - config.variable_min) * double(i) / double(kBatches - 1);
      held_out.push_back(
          make_pooling_batch(exact_length(config.task, int64_t(at)), kPerBatch, rng));
    }
  } else {
    for (int64_t i = 0; i < config.eval_batches; ++i) {
      held_out.push_back(make_pooling_batch(config.task, config.batch_size, rng));
    }
  }
  return held_out;
}

bool all_finite(const std::vector<train::ParamRef>& params) {
  for (const train::ParamRef& p : params) {
    for (size_t i = 0; i < p.size; ++i) {
      if (!std::isfinite(p.value[i])) return false;
    }
  }
  return true;
}

}  // namespace

namespace {

// What a run carries from update to update beyond its model and optimizer.
struct RunState {
  PoolingRunResult* result;
  PoolingProgress* progress;
  int64_t* tested_at;
  Rng* train_rng;
};

std::string exact(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

void save_checkpoint(const PoolingCheckpoint& checkpoint,
                     const std::vector<train::ParamRef>& params, const train::Optimizer& optimizer,
                     const RunState& state, double seconds) {
  io::SafeTensors out;
  for (const train::ParamRef& p : params) {
    out.add_f32("param/" + p.name, {int64_t(p.size)}, p.value);
  }
  optimizer.save_state(params, out);
  std::ostringstream rng;
  rng << *state.train_rng;
  out.set_metadata("key", checkpoint.key);
  out.set_metadata("train_rng", rng.str());
  out.set_metadata("steps", std::to_string(state.result->steps));
  out.set_metadata("tested_at", std::to_string(*state.tested_at));
  out.set_metadata("accuracy", exact(state.result->accuracy));
  out.set_metadata("best_accuracy", exact(state.result->best_accuracy));
  out.set_metadata("mse", exact(state.result->mse));
  out.set_metadata("seconds", exact(seconds));
  out.set_checksums();
  out.save(checkpoint.path);
}

// Restores a checkpoint of this run; false (nothing changed) when there is none or it is
// another run's. Returns the seconds the run had taken.
bool load_checkpoint(const PoolingCheckpoint& checkpoint,
                     const std::vector<train::ParamRef>& params, train::Optimizer& optimizer,
                     const RunState& state, int64_t max_steps, double& seconds) {
  struct stat info {};
  if (checkpoint.path.empty() || ::stat(checkpoint.path.c_str(), &info) != 0) return false;
  const io::SafeTensors in = io::SafeTensors::load(checkpoint.path);
  in.check_checksums();
  if (in.metadata("key") != checkpoint.key) {
    spdlog::warn("{}: a checkpoint of another run ({}); this run starts afresh and replaces it",
                 checkpoint.path, in.metadata("key"));
    return false;
  }
  for (const train::ParamRef& p : params) {
    const std::vector<float> values = in.get("param/" + p.name).as_f32();
    if (values.size() != p.size) {
      throw FormatError(checkpoint.path + ": 'param/" + p.name + "' has " +
                        std::to_string(values.size()) + " values, the model " +
                        std::to_string(p.size));
    }
    // A run stops at a weight that is not finite (a "diverged" row) and never saves one.
    if (!std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); })) {
      throw FormatError(checkpoint.path + ": 'param/" + p.name +
                        "' holds a value that is not "
                        "finite, which no run saves");
    }
    std::copy(values.begin(), values.end(), p.value);
  }
  optimizer.load_state(params, in);
  std::istringstream rng(in.metadata("train_rng"));
  rng >> *state.train_rng;
  if (rng.fail()) throw FormatError(checkpoint.path + ": metadata 'train_rng' is not an RNG state");
  // Every number in the range a run of this budget can write, checked before it is used (an
  // edited "steps" of 10^21 overflowed into a negative count).
  const auto number = [&](const char* key, double low, double high) {
    const double value = in.metadata_number(key);
    if (!(value >= low && value <= high)) {
      throw FormatError(checkpoint.path + ": metadata '" + key + "' is " + exact(value) +
                        ", not in [" + exact(low) + ", " + exact(high) + "]");
    }
    return value;
  };
  const auto whole = [&](const char* key, int64_t low, int64_t high) {
    const double value = number(key, double(low), double(high));
    if (value != std::floor(value)) {
      throw FormatError(checkpoint.path + ": metadata '" + key + "' is " + exact(value) +
                        ", not a whole number");
    }
    return int64_t(value);
  };
  state.result->steps = whole("steps", 0, max_steps);
  *state.tested_at = whole("tested_at", -1, state.result->steps);
  state.result->accuracy = number("accuracy", 0, 1);
  state.result->best_accuracy = number("best_accuracy", 0, 1);
  state.result->mse = in.metadata_number("mse");  // only reported; may be inf after a bad test
  state.progress->step = state.result->steps;
  if (*state.tested_at >= 0) state.progress->accuracy = state.result->accuracy;
  seconds = number("seconds", 0, std::numeric_limits<double>::max());
  return true;
}

}  // namespace

PoolingRunResult run_pooling(const PoolingRunConfig& config,
                             const std::function<void(const PoolingProgress&)>& on_step,
                             const PoolingCheckpoint& checkpoint) {
  config.validate();
  // Separate streams: the same held-out set and training batches for every model.
  Rng init_rng = make_rng(config.seed, 1);
  Rng train_rng = make_rng(config.seed, 2);
  Rng eval_rng = make_rng(config.seed, 3);
  const Timer timer;
  const std::vector<PoolingBatch> held_out = held_out_set(config, eval_rng);
  PoolingModel model(config.kind, config.model_length(), config.width, init_rng, config.fused,
                     config.fixed_scale);
  std::vector<train::ParamRef> params;
  for (layers::Parameter* p : model.parameters().all()) {
    params.push_back({p->name, p->value.data(), p->grad.data(), size_t(p->value.numel())});
  }
  auto optimizer = train::make_optimizer(train::OptimizerConfig{});
  // variable_length_experiments.py: np.random.random_integers(min, max), both included.
  std::uniform_int_distribution<int64_t> batch_length(config.variable_min, config.variable_max);

  PoolingRunResult result;
  result.parameters = model.parameter_count();
  PoolingProgress progress;
  int64_t tested_at = -1;
  const auto test = [&] {
    const PoolingScore score = evaluate_pooling(model, held_out, config.tolerance);
    result.accuracy = progress.accuracy = score.accuracy;
    result.best_accuracy = std::max(result.best_accuracy, score.accuracy);
    result.mse = score.mse;
    tested_at = result.steps;
    if (score.accuracy >= config.solved_fraction) {
      result.solved = true;
      result.steps_to_solve = result.steps;
    }
  };
  const RunState state{&result, &progress, &tested_at, &train_rng};
  double seconds_before = 0;
  if (load_checkpoint(checkpoint, params, *optimizer, state, config.budget_steps, seconds_before)) {
    model.weights_changed();
    spdlog::info("{}: continuing at update {}", checkpoint.path, result.steps);
  }
  // Updates to save from here on: a stop is polled after each and saves the checkpoint first.
  std::optional<train::GracefulStop> graceful;
  if (!checkpoint.path.empty()) graceful.emplace();
  const auto seconds = [&] { return seconds_before + timer.seconds(); };
  std::vector<float> predictions, d_predictions;
  while (!result.solved && result.steps < config.budget_steps) {
    if (config.stop_after > 0 && result.steps >= config.stop_after) break;
    const PoolingBatch batch = make_pooling_batch(
        config.variable() ? exact_length(config.task, batch_length(train_rng)) : config.task,
        config.batch_size, train_rng);
    model.parameters().zero_grad();
    model.forward(batch, predictions);
    progress.train_mse = mean_squared_error(predictions, batch.targets, &d_predictions);
    model.backward(d_predictions);
    optimizer->step(params, config.learning_rate);
    model.weights_changed();
    ++result.steps;
    if (!std::isfinite(progress.train_mse) || !all_finite(params)) {
      result.diverged = true;
      break;
    }
    if (result.steps % config.eval_every == 0) test();
    progress.step = result.steps;
    progress.seconds = seconds();
    if (on_step) on_step(progress);
    if (checkpoint.path.empty()) continue;
    if (const int signal = train::stop_signal()) {
      save_checkpoint(checkpoint, params, *optimizer, state, seconds());
      throw Interrupted(signal);
    }
    if (result.steps % checkpoint.every == 0 && !result.solved) {
      save_checkpoint(checkpoint, params, *optimizer, state, seconds());
    }
  }
  if (!result.diverged && tested_at != result.steps) test();
  for (const PoolingTask& task : config.transfer_tasks) {
    if (result.diverged) break;
    std::vector<PoolingBatch> transfer;
    for (int64_t i = 0; i < config.eval_batches; ++i) {
      transfer.push_back(make_pooling_batch(task, config.batch_size, eval_rng));
    }
    result.transfer_accuracy.push_back(
        evaluate_pooling(model, transfer, config.tolerance).accuracy);
  }
  if (config.kind == PoolingKind::kFeedForwardPositional) {
    for (const train::ParamRef& p : params) {
      if (p.name == "pool/b") result.positional_bias.assign(p.value, p.value + p.size);
    }
  }
  if (!result.diverged && config.fused && is_attention(config.kind)) {
    double scale = config.kind == PoolingKind::kFeedForwardLinear
                       ? std::numeric_limits<double>::quiet_NaN()
                   : config.kind == PoolingKind::kFeedForwardFixedScale ? double(config.fixed_scale)
                                                                        : 1.0;
    for (const train::ParamRef& p : params) {
      if (p.name == "pool/scale") scale = std::fabs(double(p.value[0]));
    }
    std::tie(result.marked_weight, result.marked_bound) = marked_weight(model, held_out, scale);
  }
  result.seconds = seconds();
  return result;
}

}  // namespace heed::pooling
