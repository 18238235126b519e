#include "heed/train/trainer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <sstream>

#include "heed/common/error.h"
#include "heed/common/memory.h"
#include "heed/common/profile.h"
#include "heed/common/rng.h"
#include "heed/common/strings.h"
#include "heed/io/line_writer.h"
#include "heed/model/model_file.h"
#include "heed/model/seq2seq.h"
#include "heed/model/serialize.h"
#include "heed/onednn/context.h"
#include "heed/train/communicator.h"
#include "heed/train/corpus.h"
#include "heed/train/curves.h"
#include "heed/train/memory.h"
#include "heed/train/metrics.h"
#include "heed/train/moving_average.h"
#include "heed/train/output_dir.h"
#include "heed/train/signals.h"
#include "heed/train/training_state.h"
#include "heed/train/update.h"
#include "heed/train/validator.h"

namespace heed::train {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Updates since the last progress report or validation.
struct Window {
  double loss = 0, tokens = 0, seconds = 0;
  int64_t steps = 0;
  double mean_loss() const { return steps ? loss / double(steps) : std::nan(""); }
  double tokens_per_second() const { return seconds > 0 ? tokens / seconds : 0; }
};

// --profile: the updates' time per phase (common/profile.h), after the first metrics window
// (its new batch shapes plan oneDNN's primitives), outside validation.
struct PhaseProfile {
  std::array<double, profile::kPhases> phase{};
  double seconds = 0, tokens = 0;
  int64_t updates = 0;
  // The TSV: a row per phase and "other", the update's time outside every phase.
  std::string tsv(int64_t skipped) const;
};

std::string PhaseProfile::tsv(int64_t skipped) const {
  std::string out = fmt::format(
      "# heed-train --profile: {} updates after the first {}, {:.0f} target tokens/s\n"
      "phase\tseconds\tshare\tms_per_update\n",
      updates, skipped, seconds > 0 ? tokens / seconds : 0.0);
  const auto row = [&](const char* name, double s) {
    out += fmt::format("{}\t{:.3f}\t{:.3f}\t{:.2f}\n", name, s, seconds > 0 ? s / seconds : 0.0,
                       updates ? 1e3 * s / double(updates) : 0.0);
  };
  double phases = 0;
  for (size_t p = 0; p < profile::kPhases; ++p) {
    row(profile::phase_name(profile::Phase(p)), phase[p]);
    phases += phase[p];
  }
  row("other", std::max(0.0, seconds - phases));
  row("update", seconds);
  return out;
}

// The model for config, refused (ConfigError) before it is allocated when its parameters cannot
// be trained in this machine's memory, and after it is built when an update on the largest batch
// the training data can make could not fit either (train/memory.h): sizes that cannot work are
// named at once instead of growing until the kernel kills the process.
std::unique_ptr<model::Seq2Seq> build_model(const model::ModelConfig& config,
                                            const TrainConfig& train, const TrainingData& data) {
  const double available = physical_memory_bytes();
  const double gib = double(1 << 30);
  layers::ParameterLimit limit;
  if (available > 0) {
    limit.max_values = int64_t(available / kTrainingBytesPerParameter);
    limit.why = fmt::format(
        "--hidden {} --embed {} with {} + {} layers and vocabularies of {} and {}: the model "
        "cannot be trained in the {:.1f} GiB of memory here ({:.0f} bytes a parameter with the "
        "optimizer's state, so at most {} parameters); lower --hidden, --embed, --layers or "
        "--vocab-size",
        config.hidden, config.embed, config.encoder_layers, config.decoder_layers,
        config.src_vocab_size, config.tgt_vocab_size, available / gib, kTrainingBytesPerParameter,
        limit.max_values);
  }
  auto model = std::make_unique<model::Seq2Seq>(config, train.precision, std::move(limit));
  BatchBound batch = largest_batch(data.train, train.batching);
  if (data.dropout) {
    // Each epoch segments afresh: a side may be as long as --max-length (bpe_dropout.h).
    batch = largest_batch(int64_t(data.train.size()), train.max_length, train.max_length + 1,
                          train.batching);
  }
  const double parameters = kTrainingBytesPerParameter * double(model->parameters().numel());
  const double activations = activation_bytes(model->config(), model->attention(), batch);
  spdlog::info("memory: about {:.1f} MiB (parameters and optimizer {:.1f}, activations {:.1f})",
               (parameters + activations) / (1 << 20), parameters / (1 << 20),
               activations / (1 << 20));
  check_fits_in_memory(
      parameters + activations,
      fmt::format("--batch-size {}{}: an update on the largest batch the training data can make "
                  "(up to {} pairs, {} padded source and {} target tokens, sources up to {} "
                  "tokens)",
                  train.batching.max_sentences,
                  train.batching.max_tokens > 0
                      ? fmt::format(" --batch-tokens {}", train.batching.max_tokens)
                      : std::string(),
                  batch.rows, batch.src_tokens, batch.tgt_tokens, batch.src_len),
      "lower --batch-size, set --batch-tokens or lower --max-length");
  return model;
}

// The trainer of one process. With several (world().size() > 1) every rank holds the whole model
// and the same state and makes the same decisions; each computes the gradients of its shard of
// the global batch, and rank 0 alone validates, logs and writes files.
class Trainer {
 public:
  Trainer(const TrainConfig& config, const std::function<void(const TrainProgress&)>& progress)
      : config_(config), progress_(progress), world_(world()), writer_(world_.rank() == 0) {}

  // Trains; a run that ends by an exception having written nothing leaves no lock file, and
  // no directory when it made it (OutputDirLock::abandon).
  TrainResult run();

 private:
  TrainResult run_training();
  // With BPE-dropout, the training pairs segmented for state_.epoch (as every run segments it).
  void segment_epoch();
  // Everything before the first update, step by step: the outputs, the checkpoint with
  // --resume, the data, the model, the optimizer and schedule, and the state to continue from.
  void start();
  // What the run writes, rank 0: the metrics file opened, the output directory owned, the
  // checkpoint's place checked.
  void open_outputs();
  // With --resume, the checkpoint, checked against its own architecture; null without.
  std::unique_ptr<model::ModelFile> read_checkpoint() const;
  // The training and validation data, in the checkpoint's vocabularies when resumed.
  void load_data(const model::ModelFile* resumed);
  // The model of config (the command line's, or the checkpoint's) for the data's vocabularies,
  // refused when it cannot fit or score a validation sentence; params_ over its parameters.
  void build(model::ModelConfig config);
  // The checkpoint's weights, optimizer moments, trainer state, schedule, moving average and
  // dropout stream: where its run stopped.
  void restore(const model::ModelFile& checkpoint);
  void restore_average(const model::ModelFile& checkpoint);
  void step(const std::vector<size_t>& global_batch);
  // Returns true when early stopping says stop.
  bool validate(bool scheduled, float lr);
  // A metrics row of the updates since the last one, without validation.
  void log_metrics(float lr);
  MetricsRow metrics_row(float lr);
  // Writes row to the metrics file and keeps it for the curves (in the checkpoint's state).
  void record(const MetricsRow& row);
  // DIR/curves.svg from the rows so far, atomically; a failure is said once and training goes on.
  void draw_curves();
  // Exponential smoothing (TrainConfig::ema_decay): the average follows each update; f runs with
  // the averaged weights in the model (the live ones are put back after).
  void update_average();
  template <class F>
  void with_model_weights(F f);
  void swap_average();
  // The stop signal any rank received (0: none), and the clock of the slowest rank.
  int agree_on_stop_and_clock();
  void save_checkpoint();
  void warn_overridden(const model::ModelConfig& checkpoint) const;
  // Takes the output directory (rank 0): the lock, a killed save's temporaries, and the refusal
  // of another run's files (or their removal with --overwrite).
  void own_output_directory();
  // The model's weights (with_model_weights: the moving average with smoothing) to path.
  void save_model(const std::string& path);
  // DIR/model.step-K.heed, recorded in the state as this run's (before the checkpoint that
  // lists it is saved); prune_kept_models() then removes this run's oldest beyond --keep-models,
  // and never a file another run wrote.
  void keep_model();
  void prune_kept_models();
  model::ModelFile model_file() const;
  double fraction_done(size_t plan_size) const;

  const TrainConfig& config_;
  std::function<void(const TrainProgress&)> progress_;
  Communicator& world_;
  const bool writer_;  // rank 0
  TrainingData data_;
  std::unique_ptr<Validator> validator_;
  std::unique_ptr<MetricsWriter> metrics_;  // rank 0's file, opened by start()
  std::unique_ptr<model::Seq2Seq> model_;
  std::unique_ptr<Optimizer> optimizer_;
  std::unique_ptr<LrSchedule> schedule_;
  std::vector<ParamRef> params_;
  std::vector<std::vector<float>> average_;  // per parameter; empty without smoothing
  TrainingState state_;
  Rng rng_;  // rank 0's dropout; other ranks draw from a stream per (rank, step)
  std::string checkpoint_path_, model_path_;
  std::unique_ptr<OutputDirLock> lock_;  // rank 0's: one run per output directory
  Window window_;
  PhaseProfile profile_;
  bool curves_failed_ = false;
  int64_t last_saved_ = 0;
  int64_t steps_before_ = 0;  // at the start of this run
  double tokens_trained_ = 0;
  Clock::time_point started_;
  double elapsed_before_ = 0;
};

model::ModelFile Trainer::model_file() const {
  model::ModelFile file;
  file.config = model_->config();
  file.src_vocab = data_.src_vocab;
  file.tgt_vocab = data_.tgt_vocab;
  file.extra = config_.extra;
  model::write_parameters(model_->parameters(), file.tensors);
  return file;
}

void Trainer::save_model(const std::string& path) {
  if (!writer_) return;
  model::ModelFile file = model_file();
  file.moving_average = !average_.empty();
  model::save_model(path, file);
}

void Trainer::swap_average() {
  if (average_.empty()) return;
#pragma omp parallel for schedule(dynamic)
  for (size_t p = 0; p < params_.size(); ++p) {
    std::swap_ranges(params_[p].value, params_[p].value + params_[p].size, average_[p].data());
  }
  model_->weights_changed();
}

template <class F>
void Trainer::with_model_weights(F f) {
  swap_average();
  try {
    f();
  } catch (...) {
    swap_average();
    throw;
  }
  swap_average();
}

void Trainer::update_average() {
  if (!average_.empty())
    smooth(average_, params_, smoothing_weight(config_.ema_decay, state_.step));
}

void Trainer::keep_model() {
  if (config_.keep_models <= 0) return;
  if (writer_) {
    with_model_weights(
        [&] { save_model((fs::path(config_.output) / kept_model_name(state_.step)).string()); });
  }
  state_.kept_steps.push_back(state_.step);
}

void Trainer::prune_kept_models() {
  if (config_.keep_models <= 0) return;
  std::vector<int64_t>& kept = state_.kept_steps;
  while (kept.size() > size_t(config_.keep_models)) {
    if (writer_) {
      std::error_code gone;  // already (a kill between this and the checkpoint that lists it)
      fs::remove(fs::path(config_.output) / kept_model_name(kept.front()), gone);
    }
    kept.erase(kept.begin());
  }
}

void Trainer::save_checkpoint() {
  last_saved_ = state_.step;
  if (!writer_) return;
  model::ModelFile file = model_file();
  optimizer_->save_state(params_, file.tensors);
  for (size_t p = 0; p < average_.size(); ++p) {
    file.tensors.add_f32(model::kMovingAveragePrefix + params_[p].name, {int64_t(params_[p].size)},
                         average_[p].data());
  }
  state_.lr_current = schedule_->current();
  state_.lr_best = schedule_->best();
  state_.lr_bad = schedule_->bad_validations();
  std::ostringstream rng;
  rng << rng_;
  state_.rng = rng.str();
  state_.world_size = world_.size();
  file.extra["train_state"] = state_.to_text();
  model::save_model(checkpoint_path_, file);
  spdlog::debug("checkpoint saved at step {}", state_.step);
}

// The extra validation at the end of a run only keeps the best model: it does not step the
// learning-rate schedule or early stopping, so a run made in stages (--time-limit, then
// --resume) follows the schedule of one run.
MetricsRow Trainer::metrics_row(float lr) {
  MetricsRow row;
  row.step = state_.step;
  row.epoch = state_.epoch + 1;
  row.loss = window_.mean_loss();
  row.lr = lr;
  row.tokens_per_second = window_.tokens_per_second();
  row.elapsed = state_.elapsed;
  row.valid_ppl = row.valid_bleu = std::nan("");
  window_ = Window();
  return row;
}

void Trainer::record(const MetricsRow& row) {
  metrics_->write(row);
  state_.curve.push_back(curve_point(row));
}

void Trainer::draw_curves() {
  if (!writer_ || curves_failed_) return;
  const std::string path = (fs::path(config_.output) / kCurvesFileName).string();
  try {
    io::write_file_atomically(path, learning_curves_svg({{config_.output, state_.curve}}));
  } catch (const WriteError& e) {
    curves_failed_ = true;
    spdlog::warn("{}; training goes on, without curves", e.what());
  }
}

void Trainer::log_metrics(float lr) {
  record(metrics_row(lr));
}

bool Trainer::validate(bool scheduled, float lr) {
  MetricsRow row = metrics_row(lr);
  if (validator_->empty()) {
    record(row);
    draw_curves();
    return false;
  }
  std::vector<double> scores(2);
  with_model_weights([&] {
    if (writer_) {
      const ValidationScores s = validator_->run(*model_);
      scores = {s.perplexity, s.bleu};
    }
  });
  world_.broadcast(scores);
  const double ppl = scores[0], bleu = scores[1];
  spdlog::info("step {} epoch {}: validation perplexity {:.2f}, BLEU {:.2f}", state_.step,
               state_.epoch + 1, ppl, bleu);
  row.valid_ppl = ppl;
  row.valid_bleu = bleu;
  const bool by_bleu = config_.valid_metric == ValidMetric::kBleu;
  std::vector<std::string> events;
  if (scheduled && schedule_->on_validation(by_bleu ? -bleu : ppl)) events.push_back("lr-decay");
  const bool first = !std::isfinite(state_.best_ppl);
  if (first || (by_bleu ? bleu > state_.best_bleu : ppl < state_.best_ppl)) {
    state_.best_ppl = ppl;
    state_.best_bleu = bleu;
    state_.best_step = state_.step;
    if (scheduled) state_.bad_validations = 0;
    with_model_weights([&] { save_model(model_path_); });
    spdlog::info("new best model saved to {}", model_path_);
    events.push_back("best");
  } else if (scheduled) {
    ++state_.bad_validations;
  }
  const bool stop = config_.patience > 0 && state_.bad_validations >= config_.patience;
  if (stop) {
    events.push_back("early-stop");
    spdlog::info(
        "early stopping: {} validations without a better {} since step {} (perplexity {:.2f}, "
        "BLEU {:.2f}); that model is {}",
        state_.bad_validations, to_string(config_.valid_metric), state_.best_step, state_.best_ppl,
        state_.best_bleu, model_path_);
  }
  for (const std::string& e : events) row.event += (row.event.empty() ? "" : ",") + e;
  record(row);
  draw_curves();
  return stop;
}

int Trainer::agree_on_stop_and_clock() {
  state_.elapsed = elapsed_before_ + std::chrono::duration<double>(Clock::now() - started_).count();
  std::vector<double> values = {double(stop_signal()), state_.elapsed};
  world_.max(values);
  state_.elapsed = values[1];
  return int(values[0]);
}

// On --resume the checkpoint's architecture and learning-rate state win over the command line:
// every option the user gave that says otherwise is named, so that nobody believes it applied.
void Trainer::warn_overridden(const model::ModelConfig& checkpoint) const {
  const model::ModelConfig& asked = config_.model;
  std::vector<std::string> ignored;
  auto differs = [&](const char* option, bool different, const std::string& kept) {
    if (config_.given.count(option) && different) {
      ignored.push_back(std::string("--") + option + " " + kept);
    }
  };
  differs("attention", asked.attention != checkpoint.attention, checkpoint.attention);
  differs("decoder", asked.decoder != checkpoint.decoder, model::to_string(checkpoint.decoder));
  differs("cell", asked.cell != checkpoint.cell, model::to_string(checkpoint.cell));
  differs("hidden", asked.hidden != checkpoint.hidden, std::to_string(checkpoint.hidden));
  differs("embed", asked.embed != checkpoint.embed, std::to_string(checkpoint.embed));
  differs("attention-dim", asked.attention_dim != checkpoint.attention_dim,
          std::to_string(checkpoint.attention_dim));
  differs(
      "layers",
      asked.encoder_layers != checkpoint.encoder_layers ||
          asked.decoder_layers != checkpoint.decoder_layers,
      std::to_string(checkpoint.encoder_layers) + "/" + std::to_string(checkpoint.decoder_layers));
  differs("encoder-layers", asked.encoder_layers != checkpoint.encoder_layers,
          std::to_string(checkpoint.encoder_layers));
  differs("decoder-layers", asked.decoder_layers != checkpoint.decoder_layers,
          std::to_string(checkpoint.decoder_layers));
  differs("bridge", asked.bridge != checkpoint.bridge, model::to_string(checkpoint.bridge));
  differs("dropout", asked.dropout != checkpoint.dropout, std::to_string(checkpoint.dropout));
  differs("dropout-src", asked.dropout_src != checkpoint.dropout_src,
          std::to_string(checkpoint.dropout_src));
  differs("dropout-trg", asked.dropout_trg != checkpoint.dropout_trg,
          std::to_string(checkpoint.dropout_trg));
  differs("tie-embeddings", asked.tie_target_embeddings != checkpoint.tie_target_embeddings,
          checkpoint.tie_target_embeddings ? "tied" : "untied");
  differs("unidirectional", asked.bidirectional != checkpoint.bidirectional,
          checkpoint.bidirectional ? "bidirectional" : "unidirectional");
  differs("lr", config_.schedule.lr != state_.lr_current,
          fmt::format("{:.3g} (the rate as its schedule left it)", state_.lr_current));
  for (const std::string& option : ignored) {
    spdlog::warn("--resume: the checkpoint's {} is kept; the command line's is ignored", option);
  }
}

void Trainer::own_output_directory() {
  lock_ = std::make_unique<OutputDirLock>(config_.output);
  if (const int stale = remove_stale_temporaries(config_.output)) {
    spdlog::info("{}: removed {} temporary file{} a killed run left", config_.output, stale,
                 stale > 1 ? "s" : "");
  }
  if (config_.resume) return;
  // Without --resume any run file here is another run's, checkpoint or not (a run's checkpoint
  // is often removed after training: it holds the optimizer's moments).
  std::vector<std::string> earlier;
  for (const fs::directory_entry& entry : fs::directory_iterator(config_.output)) {
    const std::string name = entry.path().filename().string();
    if (is_run_file(name)) earlier.push_back(name);
  }
  if (earlier.empty()) return;
  std::sort(earlier.begin(), earlier.end(), [](const std::string& a, const std::string& b) {
    return std::make_pair(a != "checkpoint.heed", a) < std::make_pair(b != "checkpoint.heed", b);
  });
  if (!config_.overwrite) {
    const std::string first = (fs::path(config_.output) / earlier.front()).string();
    throw ConfigError(
        earlier.front() == "checkpoint.heed"
            ? first +
                  " exists (another run's): --resume to continue it, "
                  "--overwrite to start again in this directory, or another -o"
            : first + " exists (another run's" +
                  (earlier.size() > 1
                       ? ", with " + std::to_string(earlier.size() - 1) + " more of its models"
                       : std::string()) +
                  "; no checkpoint to resume): --overwrite to start again in this "
                  "directory, or another -o");
  }
  // A new run: nothing of the old one may be mistaken for its output.
  for (const std::string& name : earlier) fs::remove(fs::path(config_.output) / name);
  spdlog::warn("{}: --overwrite: the previous run's {} removed", config_.output,
               join(earlier, ", "));
}

void Trainer::start() {
  open_outputs();
  const std::unique_ptr<model::ModelFile> resumed = read_checkpoint();
  load_data(resumed.get());
  build(resumed ? resumed->config : config_.model);
  optimizer_ = make_optimizer(config_.optimizer);
  schedule_ = std::make_unique<LrSchedule>(config_.schedule_config());
  rng_ = make_rng(config_.seed, /*stream=*/3);
  if (resumed) {
    restore(*resumed);
  } else {
    model_->initialize(config_.seed, config_.init_scale);
  }
  if (config_.ema_decay > 0 && average_.empty()) {
    for (const ParamRef& p : params_) average_.emplace_back(p.value, p.value + p.size);
  }
  if (world_.size() > 1) {
    spdlog::info(
        "data parallel: {} processes, each takes its share of every batch of up to {} "
        "sentences",
        world_.size(), config_.batching.max_sentences);
  }
  last_saved_ = steps_before_ = state_.step;
  elapsed_before_ = state_.elapsed;
  started_ = Clock::now();
}

void Trainer::open_outputs() {
  checkpoint_path_ = (fs::path(config_.output) / "checkpoint.heed").string();
  model_path_ = (fs::path(config_.output) / "model.heed").string();
  // The metrics file is checked and opened first, found now rather than at the first row after
  // minutes of training; before the lock, since a FIFO's open waits for its reader and a run
  // waiting so must not hold the directory (cli.train_lock_race).
  metrics_ = std::make_unique<MetricsWriter>(writer_ ? config_.metrics_file : std::string());
  if (writer_ && !config_.profile_file.empty()) {
    if (fs::is_directory(config_.profile_file)) {
      throw WriteError("cannot write the profile '" + config_.profile_file + "': a directory");
    }
    io::check_writable(config_.profile_file);
  }
  if (writer_) {
    own_output_directory();
    io::check_writable(checkpoint_path_);
  }
}

std::unique_ptr<model::ModelFile> Trainer::read_checkpoint() const {
  if (!config_.resume) return nullptr;
  if (!fs::exists(checkpoint_path_)) {
    throw FileError(checkpoint_path_ + ": no checkpoint to resume from");
  }
  auto checkpoint = std::make_unique<model::ModelFile>(model::load_model(checkpoint_path_));
  if (!checkpoint->extra.count("train_state")) {
    throw FormatError(checkpoint_path_ + ": not a training checkpoint (no trainer state)");
  }
  model::check_architecture(checkpoint->config, checkpoint->tensors, checkpoint_path_);
  return checkpoint;
}

void Trainer::load_data(const model::ModelFile* resumed) {
  data_ = resumed ? load_training_data(config_, &resumed->src_vocab, &resumed->tgt_vocab)
                  : load_training_data(config_);
  validator_ = std::make_unique<Validator>(data_.valid, data_.valid_refs, data_.tgt_vocab,
                                           config_.valid_max_sentences);
}

void Trainer::build(model::ModelConfig config) {
  config.src_vocab_size = static_cast<int>(data_.src_vocab.size());
  config.tgt_vocab_size = static_cast<int>(data_.tgt_vocab.size());
  model_ = build_model(config, config_, data_);
  // Validation pairs are not length-filtered: one the attention cannot score is refused here,
  // before training, not at the first validation.
  if (const int64_t limit = model_->config().max_source_length(); limit > 0) {
    for (size_t i = 0; i < data_.valid.size(); ++i) {
      if (static_cast<int64_t>(data_.valid[i].src.size()) > limit) {
        throw DataError(at_line(config_.valid_src, static_cast<long long>(i + 1),
                                "source sentence of " + std::to_string(data_.valid[i].src.size()) +
                                    " tokens is longer than attention '" +
                                    model_->config().attention + "' can score (--max-positions " +
                                    std::to_string(limit) + ")"));
      }
    }
  }
  spdlog::info(
      "model: {} ({} parameters{}, {})", model_->config().summary(), model_->parameters().numel(),
      model_->config().tie_target_embeddings
          ? fmt::format("; {} saved by tying the target embeddings and the output projection",
                        int64_t(model_->config().tgt_vocab_size) * model_->decoder().output_size())
          : std::string(),
      onednn::precision_name(config_.precision));
  for (layers::Parameter* p : model_->parameters().all()) {
    params_.push_back({p->name, p->value.data(), p->grad.data(), size_t(p->value.numel())});
  }
}

void Trainer::restore(const model::ModelFile& checkpoint) {
  model::read_parameters(checkpoint.tensors, checkpoint_path_, model_->parameters());
  model_->weights_changed();
  optimizer_->load_state(params_, checkpoint.tensors);
  state_ = TrainingState::from_text(checkpoint.extra.at("train_state"), checkpoint_path_);
  if (!state_.kept_steps_recorded) {
    // A checkpoint from before the kept models were recorded: the kept models up to its step
    // count as its run's, as they always did.
    for (const fs::directory_entry& entry : fs::directory_iterator(config_.output)) {
      int64_t kept = -1;
      if (is_run_file(entry.path().filename().string(), &kept) && kept > 0 && kept <= state_.step) {
        state_.kept_steps.push_back(kept);
      }
    }
    std::sort(state_.kept_steps.begin(), state_.kept_steps.end());
  }
  schedule_->restore(state_.lr_current, state_.lr_best, state_.lr_bad);
  if (config_.ema_decay > 0) restore_average(checkpoint);
  std::istringstream rng(state_.rng);
  rng >> rng_;
  warn_overridden(model_->config());
  spdlog::info(
      "resumed from {} at step {} (epoch {}){}", checkpoint_path_, state_.step, state_.epoch + 1,
      state_.world_size != world_.size() ? fmt::format(", written by {} processes, continued by {}",
                                                       state_.world_size, world_.size())
                                         : std::string());
}

void Trainer::restore_average(const model::ModelFile& checkpoint) {
  for (const ParamRef& p : params_) {
    const std::string name = model::kMovingAveragePrefix + p.name;
    if (!checkpoint.tensors.has(name)) {
      spdlog::warn(
          "{}: no moving average stored (trained without --exponential-smoothing): it "
          "starts from the weights at step {}",
          checkpoint_path_, state_.step);
      average_.clear();
      return;
    }
    const std::vector<float> values = checkpoint.tensors.get(name).as_f32();
    if (values.size() != p.size) {
      throw FormatError(checkpoint_path_ + ": tensor '" + name + "' does not match '" + p.name +
                        "'");
    }
    average_.push_back(values);
  }
}

void Trainer::step(const std::vector<size_t>& global_batch) {
  const bool profiled = profile::enabled() && state_.step - steps_before_ >= config_.log_every;
  const std::array<double, profile::kPhases> phases_before = profile::seconds();
  const auto t0 = Clock::now();
  const std::vector<size_t> mine = shard_of(global_batch, world_.rank(), world_.size());
  model::Batch shard;
  if (!mine.empty()) {
    profile::Scope phase(profile::Phase::kBatching);
    shard = make_batch(data_.train, mine);
  }
  model::LossOptions options;
  options.label_smoothing = config_.label_smoothing;
  options.guided_alignment_weight = config_.guided_alignment_weight;
  const float lr = schedule_->lr(state_.step + 1);
  // Dropout: rank 0 continues the stream a checkpoint keeps (so one process is what it always
  // was); the other ranks' streams depend only on (seed, rank, step), so they resume exactly
  // without being stored.
  Rng rank_rng = make_rng(config_.seed, (uint64_t(world_.rank()) << 40) + uint64_t(state_.step));
  Rng& dropout = world_.rank() == 0 ? rng_ : rank_rng;
  const UpdateResult result = update(*model_, *optimizer_, params_, mine.empty() ? nullptr : &shard,
                                     options, config_.clip_norm, lr, dropout, world_);
  if (!result.applied) {
    throw DataError("step " + std::to_string(state_.step + 1) + ": the loss is not finite (" +
                    (std::isfinite(result.loss)
                         ? "gradient norm " + std::to_string(result.grad_norm)
                         : "loss " + std::to_string(result.loss)) +
                    "); stopped without saving — " +
                    (fs::exists(checkpoint_path_)
                         ? checkpoint_path_ + " (step " + std::to_string(last_saved_) + ")"
                         : std::string("no checkpoint")) +
                    " is intact; try a lower --lr or --clip");
  }
  ++state_.step;
  ++state_.next_batch;
  update_average();
  window_.loss += result.loss;
  window_.tokens += double(result.sums.tokens);
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  window_.seconds += seconds;
  ++window_.steps;
  if (profiled) {
    const std::array<double, profile::kPhases> phases = profile::seconds();
    for (size_t p = 0; p < profile::kPhases; ++p) profile_.phase[p] += phases[p] - phases_before[p];
    profile_.seconds += seconds;
    profile_.tokens += double(result.sums.tokens);
    ++profile_.updates;
  }
  tokens_trained_ += double(result.sums.tokens);
}

void Trainer::segment_epoch() {
  if (!data_.dropout) return;
  long long plain_kept = 0;
  data_.train = data_.dropout->epoch(state_.epoch, data_.src_vocab, data_.tgt_vocab,
                                     onednn::threads(), &plain_kept);
  spdlog::info(
      "[bpe-dropout] epoch {}: {} pairs segmented afresh, {} sides over --max-length {} "
      "kept their plain segmentation",
      state_.epoch + 1, data_.train.size(), plain_kept, config_.max_length);
}

double Trainer::fraction_done(size_t plan_size) const {
  double f = 0;
  if (config_.max_steps > 0) f = std::max(f, double(state_.step) / double(config_.max_steps));
  if (config_.max_epochs > 0) {
    f = std::max(f, (double(state_.epoch) + double(state_.next_batch) / double(plan_size)) /
                        double(config_.max_epochs));
  }
  if (config_.time_limit > 0) f = std::max(f, state_.elapsed / config_.time_limit);
  return std::min(1.0, f);
}

TrainResult Trainer::run() {
  try {
    return run_training();
  } catch (const Interrupted&) {
    throw;  // its checkpoint is saved (or being saved by rank 0): the directory is the run's
  } catch (...) {
    // Only the lock's holder cleans up, holding it: a run refused because another holds the
    // lock (Busy) has none, and touches nothing.
    if (lock_) lock_->abandon();
    throw;
  }
}

TrainResult Trainer::run_training() {
  start();
  profile::set_enabled(!config_.profile_file.empty());
  // From here on a stop saves a checkpoint first; before, with nothing to save, it acted at once.
  const GracefulStop graceful;
  if (const int signal = agree_on_stop_and_clock()) {
    if (lock_) lock_->abandon();  // still nothing saved
    throw Interrupted(signal);
  }
  std::string reason;
  // A resumed run may already be at a limit.
  if (config_.max_steps > 0 && state_.step >= config_.max_steps) reason = "max-steps";
  if (config_.time_limit > 0 && state_.elapsed >= config_.time_limit) reason = "time-limit";
  float lr = schedule_->lr(state_.step + 1);
  while (reason.empty()) {
    if (config_.max_epochs > 0 && state_.epoch >= config_.max_epochs) {
      reason = "max-epochs";
      break;
    }
    segment_epoch();
    const std::vector<std::vector<size_t>> plan =
        plan_epoch(data_.train, config_.batching, config_.seed, state_.epoch);
    while (state_.next_batch < int64_t(plan.size())) {
      lr = schedule_->lr(state_.step + 1);
      step(plan[size_t(state_.next_batch)]);
      const int signal = agree_on_stop_and_clock();
      if (config_.kill_after_step > 0 && state_.step == config_.kill_after_step) {
        std::raise(SIGKILL);  // testing aid: dies like kill -9, between checkpoints
      }
      if (progress_ && writer_) {
        TrainProgress p;
        p.step = state_.step;
        p.epoch = state_.epoch;
        p.loss = window_.mean_loss();
        p.tokens_per_second = window_.tokens_per_second();
        p.elapsed = state_.elapsed;
        p.lr = lr;
        p.fraction = fraction_done(plan.size());
        progress_(p);
      }
      const bool validation_due = config_.valid_every > 0 && state_.step % config_.valid_every == 0;
      const bool stop_early = validation_due && validate(true, lr);
      if (!validation_due && config_.log_every > 0 && state_.step % config_.log_every == 0) {
        log_metrics(lr);
      }
      if (state_.next_batch == int64_t(plan.size())) {
        ++state_.epoch;
        state_.next_batch = 0;
      }
      if (stop_early) reason = "early-stopping";
      if (config_.max_steps > 0 && state_.step >= config_.max_steps) reason = "max-steps";
      if (config_.time_limit > 0 && state_.elapsed >= config_.time_limit) reason = "time-limit";
      if (config_.max_epochs > 0 && state_.epoch >= config_.max_epochs) reason = "max-epochs";
      const bool periodic =
          config_.save_every > 0 ? state_.step % config_.save_every == 0 : validation_due;
      if (periodic || !reason.empty()) keep_model();
      if (periodic || !reason.empty() || signal) save_checkpoint();
      prune_kept_models();
      if (signal) {
        // Without validation data the last weights are the model, as at a normal end.
        if (validator_->empty()) with_model_weights([&] { save_model(model_path_); });
        spdlog::warn("stopped by signal {} at step {}; resume with --resume", signal, state_.step);
        throw Interrupted(signal);
      }
      if (!reason.empty() || state_.next_batch == 0) break;
    }
  }
  // A final validation unless one just ran; without validation data the last model is the model.
  if (validator_->empty()) {
    with_model_weights([&] { save_model(model_path_); });
  } else if (config_.valid_every == 0 || state_.step % config_.valid_every != 0) {
    validate(false, lr);
    save_checkpoint();
  }
  if (!config_.profile_file.empty() && writer_) {
    io::write_file_atomically(config_.profile_file, profile_.tsv(config_.log_every));
    spdlog::info("[profile] {} updates: {}", profile_.updates, config_.profile_file);
  }
  TrainResult result;
  result.stop_reason = reason;
  result.validated = !validator_->empty();
  result.steps = state_.step;
  result.epochs = state_.epoch;
  result.best_valid_ppl = std::isfinite(state_.best_ppl) ? state_.best_ppl : 0;
  result.best_valid_bleu = state_.best_bleu;
  result.best_step = state_.best_step;
  result.seconds = state_.elapsed;
  result.processes = world_.size();
  result.tokens = tokens_trained_;
  result.run_steps = state_.step - steps_before_;
  result.run_seconds = std::chrono::duration<double>(Clock::now() - started_).count();
  result.communication_seconds = world_.communication_seconds();
  result.metrics_failure = metrics_->failure();
  return result;
}

}  // namespace

TrainResult train(const TrainConfig& config,
                  const std::function<void(const TrainProgress&)>& progress) {
  TrainConfig validated = config;
  validated.validate();
  Trainer trainer(validated, progress);
  return trainer.run();
}

}  // namespace heed::train
