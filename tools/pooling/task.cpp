#include "task.h"

#include <cmath>
#include <cstring>
#include <random>

#include "heed/attention/feed_forward_pool.h"
#include "heed/common/check.h"
#include "heed/common/error.h"
#include "heed/common/timer.h"
#include "heed/train/optimizer.h"
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

PoolingKind parse_pooling_kind(const std::string& name) {
  if (name == "ff-pool") return PoolingKind::kFeedForwardAttention;
  if (name == "mean") return PoolingKind::kMean;
  if (name == "dense") return PoolingKind::kDense;
  throw ConfigError("unknown model '" + name + "' (ff-pool, mean or dense)");
}

std::string to_string(PoolingKind kind) {
  switch (kind) {
    case PoolingKind::kFeedForwardAttention:
      return "ff-pool";
    case PoolingKind::kMean:
      return "mean";
    case PoolingKind::kDense:
      return "dense";
  }
  return "?";
}

void PoolingTask::validate() const {
  if (length < 2) throw ConfigError("sequence length must be at least 2 (two marked steps)");
}

PoolingBatch make_pooling_batch(const PoolingTask& task, int64_t count, Rng& rng) {
  task.validate();
  const int64_t t_max = task.length;
  PoolingBatch batch;
  batch.inputs = Tensor(Shape{t_max, count, 2});
  batch.lengths.resize(size_t(count));
  batch.marked.resize(size_t(count));
  batch.targets.resize(size_t(count));
  const bool addition = task.problem == PoolingProblem::kAddition;
  std::uniform_real_distribution<float> value(addition ? -1.f : 0.f, 1.f);
  std::uniform_int_distribution<int64_t> length(std::max<int64_t>(2, (t_max + 1) / 2), t_max);
  float* x = batch.inputs.data();
  for (int64_t n = 0; n < count; ++n) {
    const int64_t len = task.variable_length ? length(rng) : t_max;
    const int64_t half = len / 2;
    const int64_t first = std::uniform_int_distribution<int64_t>(0, half - 1)(rng);
    const int64_t second = std::uniform_int_distribution<int64_t>(half, len - 1)(rng);
    for (int64_t t = 0; t < len; ++t) x[(t * count + n) * 2] = value(rng);
    x[(first * count + n) * 2 + 1] = 1.f;
    x[(second * count + n) * 2 + 1] = 1.f;
    const float a = x[(first * count + n) * 2], b = x[(second * count + n) * 2];
    batch.lengths[size_t(n)] = len;
    batch.marked[size_t(n)] = {first, second};
    batch.targets[size_t(n)] = addition ? a + b : a * b;
  }
  return batch;
}

std::string not_applicable_reason(PoolingKind kind, const PoolingTask& task) {
  if (kind == PoolingKind::kDense && task.variable_length) {
    return "a dense layer over the flattened sequence has one weight per position: it takes "
           "one fixed length";
  }
  return "";
}

// How h [T, N, W] (time-major) becomes one vector per sequence [N, output_width()].
class Pooling {
 public:
  virtual ~Pooling() = default;
  virtual int64_t output_width() const = 0;
  virtual void forward(const Tensor& h, const std::vector<int64_t>& lengths, Tensor& pooled) = 0;
  // Adds to d_h (same shape as the forward's h).
  virtual void backward(const Tensor& d_pooled, Tensor& d_h) = 0;
};

namespace {

class AttentionPooling final : public Pooling {
 public:
  AttentionPooling(int64_t width, layers::ParameterStore& store) : pool_(width, store, "pool/") {}
  int64_t output_width() const override { return pool_.width(); }
  void forward(const Tensor& h, const std::vector<int64_t>& lengths, Tensor& pooled) override {
    pool_.forward(h, lengths, pooled);
  }
  void backward(const Tensor& d_pooled, Tensor& d_h) override { pool_.backward(d_pooled, d_h); }

 private:
  attention::FeedForwardPool pool_;
};

class MeanPooling final : public Pooling {
 public:
  explicit MeanPooling(int64_t width) : width_(width) {}
  int64_t output_width() const override { return width_; }
  void forward(const Tensor& h, const std::vector<int64_t>& lengths, Tensor& pooled) override {
    const int64_t n_seq = h.dim(1), w = width_;
    lengths_ = lengths;
    pooled.resize(Shape{n_seq, w});
    pooled.zero();
    // Time-major like h itself (see FeedForwardPool): sums first, then the scale.
    for (int64_t t = 0; t < h.dim(0); ++t) {
      for (int64_t n = 0; n < n_seq; ++n) {
        if (t >= lengths[size_t(n)]) continue;
        float* c = pooled.data() + n * w;
        const float* row = h.data() + (t * n_seq + n) * w;
        for (int64_t j = 0; j < w; ++j) c[j] += row[j];
      }
    }
    for (int64_t n = 0; n < n_seq; ++n) {
      const float scale = 1.f / float(lengths[size_t(n)]);
      for (int64_t j = 0; j < w; ++j) pooled.data()[n * w + j] *= scale;
    }
  }
  void backward(const Tensor& d_pooled, Tensor& d_h) override {
    const int64_t n_seq = d_h.dim(1), w = width_;
    for (int64_t t = 0; t < d_h.dim(0); ++t) {
      for (int64_t n = 0; n < n_seq; ++n) {
        const int64_t len = lengths_[size_t(n)];
        if (t >= len) continue;
        const float scale = 1.f / float(len);
        const float* dc = d_pooled.data() + n * w;
        float* row = d_h.data() + (t * n_seq + n) * w;
        for (int64_t j = 0; j < w; ++j) row[j] += scale * dc[j];
      }
    }
  }

 private:
  int64_t width_;
  std::vector<int64_t> lengths_;
};

// c = [h_1; …; h_T]: the next layer is a dense layer over the whole sequence.
class FlattenPooling final : public Pooling {
 public:
  FlattenPooling(int64_t length, int64_t width) : length_(length), width_(width) {}
  int64_t output_width() const override { return length_ * width_; }
  void forward(const Tensor& h, const std::vector<int64_t>& lengths, Tensor& pooled) override {
    const int64_t n_seq = h.dim(1), w = width_;
    HEED_CHECK(h.dim(0) == length_, "dense pooling: sequence length");
    for (int64_t len : lengths) HEED_CHECK(len == length_, "dense pooling: variable length");
    pooled.resize(Shape{n_seq, length_ * w});
    for (int64_t t = 0; t < length_; ++t) {
      for (int64_t n = 0; n < n_seq; ++n) {
        std::memcpy(pooled.data() + (n * length_ + t) * w, h.data() + (t * n_seq + n) * w,
                    size_t(w) * sizeof(float));
      }
    }
  }
  void backward(const Tensor& d_pooled, Tensor& d_h) override {
    const int64_t n_seq = d_h.dim(1), w = width_;
    for (int64_t t = 0; t < length_; ++t) {
      for (int64_t n = 0; n < n_seq; ++n) {
        const float* src = d_pooled.data() + (n * length_ + t) * w;
        float* dst = d_h.data() + (t * n_seq + n) * w;
        for (int64_t j = 0; j < w; ++j) dst[j] += src[j];
      }
    }
  }

 private:
  int64_t length_, width_;
};

std::unique_ptr<Pooling> make_pooling(PoolingKind kind, int64_t length, int64_t width,
                                      layers::ParameterStore& store) {
  switch (kind) {
    case PoolingKind::kFeedForwardAttention:
      return std::make_unique<AttentionPooling>(width, store);
    case PoolingKind::kMean:
      return std::make_unique<MeanPooling>(width);
    case PoolingKind::kDense:
      return std::make_unique<FlattenPooling>(length, width);
  }
  throw InternalError("unknown pooling");
}

// Glorot/Xavier uniform for weights [out, in] (Lasagne's default, which Raffel & Ellis used);
// vectors (biases, the attention's b) stay zero, the attention's w [K] is a [1, K] weight.
void initialise(layers::ParameterStore& store, Rng& rng) {
  for (layers::Parameter* p : store.all()) {
    const bool matrix = p->value.rank() == 2;
    const bool attention_vector = p->name == "pool/w";
    if (!matrix && !attention_vector) continue;
    const double fan_out = matrix ? double(p->value.dim(0)) : 1.0;
    const double fan_in = matrix ? double(p->value.dim(1)) : double(p->value.dim(0));
    const float limit = float(std::sqrt(6.0 / (fan_in + fan_out)));
    std::uniform_real_distribution<float> uniform(-limit, limit);
    float* v = p->value.data();
    for (int64_t i = 0; i < p->value.numel(); ++i) v[i] = uniform(rng);
  }
}

}  // namespace

PoolingModel::PoolingModel(PoolingKind kind, int64_t length, int64_t width, Rng& init_rng)
    : kind_(kind),
      width_(width),
      step_weight_(store_.add("step/weight", Shape{width, 2})),
      step_bias_(store_.add("step/bias", Shape{width})),
      pooling_(make_pooling(kind, length, width, store_)),
      hidden_weight_(store_.add("hidden/weight", Shape{width, pooling_->output_width()})),
      hidden_bias_(store_.add("hidden/bias", Shape{width})),
      output_weight_(store_.add("output/weight", Shape{1, width})),
      output_bias_(store_.add("output/bias", Shape{1})),
      step_(2, width),
      hidden_(pooling_->output_width(), width),
      output_(width, 1) {
  initialise(store_, init_rng);
  step_.set_weights(step_weight_.value, &step_bias_.value);
  hidden_.set_weights(hidden_weight_.value, &hidden_bias_.value);
  output_.set_weights(output_weight_.value, &output_bias_.value);
}

PoolingModel::~PoolingModel() = default;

int64_t PoolingModel::count_parameters(PoolingKind kind, int64_t length, int64_t width) {
  const int64_t pooled = kind == PoolingKind::kDense ? length * width : width;
  const int64_t attention = kind == PoolingKind::kFeedForwardAttention ? width + 1 : 0;
  // step [W, 2] + [W]; attention [W] + [1]; hidden [W, pooled] + [W]; output [1, W] + [1]
  return 3 * width + attention + (pooled + 1) * width + width + 1;
}

void PoolingModel::weights_changed() {
  step_.weights_changed();
  hidden_.weights_changed();
  output_.weights_changed();
}

void PoolingModel::forward(const PoolingBatch& batch, std::vector<float>& predictions) {
  const int64_t t_max = batch.inputs.dim(0), n_seq = batch.inputs.dim(1), w = width_;
  batch_ = &batch;
  step_out_.resize(Shape{t_max, n_seq, w});
  step_.forward(batch.inputs, step_out_);
  leaky_relu(step_out_.data(), step_out_.data(), step_out_.numel());
  pooling_->forward(step_out_, batch.lengths, pooled_);
  hidden_out_.resize(Shape{n_seq, w});
  hidden_.forward(pooled_, hidden_out_);
  leaky_relu(hidden_out_.data(), hidden_out_.data(), hidden_out_.numel());
  y_.resize(Shape{n_seq, 1});
  output_.forward(hidden_out_, y_);
  predictions.assign(y_.data(), y_.data() + n_seq);
}

void PoolingModel::backward(const std::vector<float>& d_predictions) {
  HEED_CHECK(batch_ != nullptr, "pooling model: backward before forward");
  const int64_t n_seq = y_.dim(0);
  HEED_CHECK(int64_t(d_predictions.size()) == n_seq, "pooling model: d_predictions size");
  d_y_.resize(Shape{n_seq, 1});
  std::memcpy(d_y_.data(), d_predictions.data(), d_y_.bytes());
  d_hidden_.resize(hidden_out_.shape());
  output_.backward(hidden_out_, d_y_, &d_hidden_, output_weight_.grad, &output_bias_.grad);
  leaky_relu_backward(hidden_out_.data(), d_hidden_.data(), d_hidden_.data(), d_hidden_.numel());
  d_pooled_.resize(pooled_.shape());
  hidden_.backward(pooled_, d_hidden_, &d_pooled_, hidden_weight_.grad, &hidden_bias_.grad);
  d_step_.resize(step_out_.shape());
  d_step_.zero();
  pooling_->backward(d_pooled_, d_step_);
  leaky_relu_backward(step_out_.data(), d_step_.data(), d_step_.data(), d_step_.numel());
  step_.backward_weights(batch_->inputs, d_step_, step_weight_.grad, &step_bias_.grad);
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

void PoolingRunConfig::validate() const {
  task.validate();
  if (width < 1 || batch_size < 1 || eval_size < 1 || eval_every < 1) {
    throw ConfigError("width, batch size, held-out size and evaluation interval must be positive");
  }
  if (!(learning_rate > 0)) throw ConfigError("learning rate must be positive");
  if (budget_steps < 0 || budget_seconds < 0 || (budget_steps == 0 && budget_seconds == 0)) {
    throw ConfigError("give a step or a time budget");
  }
  if (!not_applicable_reason(kind, task).empty()) {
    throw ConfigError(to_string(kind) + ": " + not_applicable_reason(kind, task));
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

PoolingRunResult run_pooling(const PoolingRunConfig& config,
                             const std::function<void(const PoolingProgress&)>& on_step) {
  config.validate();
  // Separate streams: the same held-out set and training batches for every model.
  Rng init_rng = make_rng(config.seed, 1);
  Rng train_rng = make_rng(config.seed, 2);
  Rng eval_rng = make_rng(config.seed, 3);
  const Timer timer;
  std::vector<PoolingBatch> held_out;
  for (int64_t done = 0; done < config.eval_size; done += config.batch_size) {
    held_out.push_back(make_pooling_batch(
        config.task, std::min(config.batch_size, config.eval_size - done), eval_rng));
  }
  PoolingModel model(config.kind, config.task.length, config.width, init_rng);
  std::vector<train::ParamRef> params;
  for (layers::Parameter* p : model.parameters().all()) {
    params.push_back({p->name, p->value.data(), p->grad.data(), size_t(p->value.numel())});
  }
  auto optimizer = train::make_optimizer(train::OptimizerConfig{});

  PoolingRunResult result;
  result.parameters = model.parameter_count();
  PoolingProgress progress;
  int64_t evaluated_at = -1;
  const auto evaluate = [&] {
    const PoolingScore score = evaluate_pooling(model, held_out, config.tolerance);
    result.accuracy = progress.accuracy = score.accuracy;
    result.mse = score.mse;
    evaluated_at = result.steps;
    if (score.accuracy >= config.solved_fraction) {
      result.solved = true;
      result.steps_to_solve = result.steps;
    }
  };
  std::vector<float> predictions, d_predictions;
  while (!result.solved) {
    if (config.budget_steps > 0 && result.steps >= config.budget_steps) break;
    if (config.budget_seconds > 0 && timer.seconds() >= config.budget_seconds) break;
    const PoolingBatch batch = make_pooling_batch(config.task, config.batch_size, train_rng);
    model.parameters().zero_grad();
    model.forward(batch, predictions);
    progress.train_mse = mean_squared_error(predictions, batch.targets, &d_predictions);
    model.backward(d_predictions);
    optimizer->step(params, config.learning_rate);
    model.weights_changed();
    ++result.steps;
    if (result.steps % config.eval_every == 0) evaluate();
    progress.step = result.steps;
    progress.seconds = timer.seconds();
    if (on_step) on_step(progress);
  }
  if (evaluated_at != result.steps) evaluate();
  result.seconds = timer.seconds();
  return result;
}

}  // namespace heed::pooling
