#include "heed/train/trainer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "heed/align/alignment.h"
#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/common/profile.h"
#include "heed/common/rng.h"
#include "heed/common/strings.h"
#include "heed/decode/model_scorer.h"
#include "heed/eval/bleu.h"
#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"
#include "heed/io/parallel_corpus.h"
#include "heed/model/model_file.h"
#include "heed/model/seq2seq.h"
#include "heed/model/serialize.h"
#include "heed/onednn/context.h"
#include "heed/text/input_check.h"
#include "heed/text/tokenizer.h"
#include "heed/text/vocab.h"
#include "heed/train/signals.h"
#include "heed/train/update.h"

namespace heed::train {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Pairs {
  std::vector<std::vector<std::string>> src, tgt;
  std::vector<long long> lines;  // the line number of each pair kept
  long long dropped = 0;
  long long total_lines = 0;  // pairs read, kept or not
};

Pairs read_pairs(io::ParallelReader& reader, int max_length, bool filter) {
  Pairs pairs;
  std::string s, t;
  while (reader.next(s, t)) {
    // The readers have dropped a leading BOM already; what is left must be text.
    for (auto* line : {&s, &t}) {
      if (const auto bad = text::find_invalid_text(*line)) {
        const std::string& name = line == &s ? reader.source_name() : reader.target_name();
        throw DataError(
            at_line(name, reader.line_number(), text::describe_invalid_text(*line, *bad)));
      }
    }
    std::vector<std::string> src, tgt;
    for (std::string_view w : split_whitespace(s)) src.emplace_back(w);
    for (std::string_view w : split_whitespace(t)) tgt.emplace_back(w);
    if (src.empty() || tgt.empty()) {
      const std::string& name = src.empty() ? reader.source_name() : reader.target_name();
      throw DataError(name + ":" + std::to_string(reader.line_number()) +
                      ": empty line (every training pair needs both sides)");
    }
    if (filter &&
        (static_cast<int>(src.size()) > max_length || static_cast<int>(tgt.size()) > max_length)) {
      ++pairs.dropped;
      continue;
    }
    pairs.src.push_back(std::move(src));
    pairs.tgt.push_back(std::move(tgt));
    pairs.lines.push_back(reader.line_number());
  }
  pairs.total_lines = reader.line_number();
  return pairs;
}

// Guided alignment: each kept pair's word links (line pairs.lines[i] of path) as links between
// their tokens — every token of source word i with every token of target word j.
void add_guide_links(const std::string& path, const Pairs& pairs, std::vector<Example>& data) {
  io::LineReader reader(path);
  std::string line;
  size_t next = 0;
  while (reader.next(line)) {
    if (next == pairs.lines.size() || reader.line_number() != pairs.lines[next]) {
      continue;  // a pair the length filter dropped
    }
    const auto links = align::parse_pharaoh(line, reader.display_name(), reader.line_number());
    const std::vector<int> src_words = text::word_indices(pairs.src[next]);
    const std::vector<int> tgt_words = text::word_indices(pairs.tgt[next]);
    const int src_count = src_words.back() + 1, tgt_count = tgt_words.back() + 1;
    for (const align::Link& link : links) {
      if (link.source >= src_count || link.target >= tgt_count) {
        throw DataError(at_line(reader.display_name(), reader.line_number(),
                                "link " + std::to_string(link.source) + "-" +
                                    std::to_string(link.target) + " is outside the pair (" +
                                    std::to_string(src_count) + " source words, " +
                                    std::to_string(tgt_count) + " target words)"));
      }
      for (size_t s = 0; s < src_words.size(); ++s) {
        if (src_words[s] != link.source) continue;
        for (size_t t = 0; t < tgt_words.size(); ++t) {
          if (tgt_words[t] == link.target) data[next].links.emplace_back(int32_t(s), int32_t(t));
        }
      }
    }
    ++next;
  }
  if (reader.line_number() != pairs.total_lines) {
    throw DataError(path + " has " + std::to_string(reader.line_number()) +
                    " lines of links but the training data has " +
                    std::to_string(pairs.total_lines) + " pairs");
  }
}

text::Vocab build_vocab(const std::vector<std::vector<std::string>>& sentences,
                        const TrainConfig& config) {
  text::WordCounts counts;
  for (const auto& sentence : sentences) {
    for (const auto& token : sentence) ++counts[token];
  }
  text::VocabOptions options;
  options.max_size = config.vocab_size;
  options.min_count = config.vocab_min_count;
  return text::Vocab::from_counts(text::sorted_counts(counts), options);
}

std::vector<int32_t> to_ids(const std::vector<std::string>& tokens, const text::Vocab& vocab) {
  std::vector<int32_t> ids;
  ids.reserve(tokens.size());
  for (const auto& t : tokens) ids.push_back(static_cast<int32_t>(vocab.id(t)));
  return ids;
}

std::vector<Example> to_examples(const Pairs& pairs, const text::Vocab& src,
                                 const text::Vocab& tgt) {
  std::vector<Example> data(pairs.src.size());
  for (size_t i = 0; i < data.size(); ++i) {
    data[i].src = to_ids(pairs.src[i], src);
    data[i].tgt = to_ids(pairs.tgt[i], tgt);
  }
  return data;
}

// Everything a resumed run needs besides weights and optimizer moments.
struct TrainerState {
  int64_t step = 0;
  int64_t epoch = 0;
  int64_t next_batch = 0;  // index into the epoch's plan
  double elapsed = 0;      // training seconds so far
  std::string rng;         // the dropout RNG, as text
  float lr_current = 0;
  double lr_best = 0;
  int lr_bad = 0;
  double best_ppl = std::numeric_limits<double>::infinity();
  double best_bleu = 0;
  int bad_validations = 0;

  std::string to_text() const {
    std::ostringstream out;
    out.precision(17);
    out << step << ' ' << epoch << ' ' << next_batch << ' ' << elapsed << ' ' << lr_current << ' '
        << lr_best << ' ' << lr_bad << ' ' << best_ppl << ' ' << best_bleu << ' ' << bad_validations
        << '\n'
        << rng;
    return out.str();
  }
  static TrainerState from_text(const std::string& text, const std::string& source) {
    TrainerState s;
    std::istringstream in(text);
    std::string f[10];
    for (std::string& field : f) in >> field;
    if (!in) throw FormatError(source + ": malformed trainer state");
    // strtod reads what operator<< wrote, "inf" included.
    auto num = [&](const std::string& v) {
      char* end = nullptr;
      const double d = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end) throw FormatError(source + ": malformed trainer state");
      return d;
    };
    s.step = int64_t(num(f[0]));
    s.epoch = int64_t(num(f[1]));
    s.next_batch = int64_t(num(f[2]));
    s.elapsed = num(f[3]);
    s.lr_current = float(num(f[4]));
    s.lr_best = num(f[5]);
    s.lr_bad = int(num(f[6]));
    s.best_ppl = num(f[7]);
    s.best_bleu = num(f[8]);
    s.bad_validations = int(num(f[9]));
    in >> std::ws;
    std::getline(in, s.rng, '\0');
    return s;
  }
};

class Trainer {
 public:
  Trainer(const TrainConfig& config, const std::function<void(const TrainProgress&)>& progress)
      : config_(config), progress_(progress) {}

  TrainResult run();

 private:
  void load_data();
  void save_checkpoint();
  void save_model(const std::string& path);
  model::ModelFile model_file() const;
  bool validate_now(double& ppl, double& bleu);
  void metrics_row(double loss, float lr, double tps, double val_ppl, double val_bleu);

  const TrainConfig& config_;
  std::function<void(const TrainProgress&)> progress_;
  text::Vocab src_vocab_, tgt_vocab_;
  bool resumed_vocab_ = false;
  std::vector<Example> train_, valid_;
  std::vector<std::string> valid_refs_;
  std::unique_ptr<model::Seq2Seq> model_;
  std::unique_ptr<Optimizer> optimizer_;
  std::unique_ptr<LrSchedule> schedule_;
  std::vector<ParamRef> params_;
  TrainerState state_;
  Rng rng_;
  std::string checkpoint_path_, model_path_;
};

void Trainer::load_data() {
  Pairs pairs;
  {
    std::unique_ptr<io::ParallelReader> reader;
    if (!config_.train_file.empty()) {
      reader = std::make_unique<io::ParallelReader>(config_.train_file);
    } else {
      reader = std::make_unique<io::ParallelReader>(config_.train_src, config_.train_tgt);
    }
    pairs = read_pairs(*reader, config_.max_length, true);
  }
  if (pairs.src.empty()) {
    throw DataError("no training pairs left after the length filter (--max-length " +
                    std::to_string(config_.max_length) + ")");
  }
  spdlog::info("training data: {} pairs, {} dropped as longer than {} tokens", pairs.src.size(),
               pairs.dropped, config_.max_length);
  if (!resumed_vocab_) {
    src_vocab_ = config_.src_vocab_file.empty() ? build_vocab(pairs.src, config_)
                                                : text::Vocab::load(config_.src_vocab_file);
    tgt_vocab_ = config_.tgt_vocab_file.empty() ? build_vocab(pairs.tgt, config_)
                                                : text::Vocab::load(config_.tgt_vocab_file);
  }
  spdlog::info("vocabularies: source {}, target {}", src_vocab_.size(), tgt_vocab_.size());
  train_ = to_examples(pairs, src_vocab_, tgt_vocab_);
  if (!config_.guided_alignment.empty()) {
    add_guide_links(config_.guided_alignment, pairs, train_);
    spdlog::info("guided alignment: links from {}, weight {}", config_.guided_alignment,
                 config_.guided_alignment_weight);
  }
  if (!config_.valid_src.empty()) {
    io::ParallelReader reader(config_.valid_src, config_.valid_tgt);
    Pairs v = read_pairs(reader, config_.max_length, false);
    valid_ = to_examples(v, src_vocab_, tgt_vocab_);
    const text::Tokenizer detok;
    for (const auto& tokens : v.tgt) valid_refs_.push_back(detok.detokenize(tokens));
    spdlog::info("validation data: {} pairs", valid_.size());
  }
}

model::ModelFile Trainer::model_file() const {
  model::ModelFile file;
  file.config = model_->config();
  file.src_vocab = src_vocab_;
  file.tgt_vocab = tgt_vocab_;
  file.extra = config_.extra;
  model::write_parameters(model_->parameters(), file.tensors);
  return file;
}

void Trainer::save_model(const std::string& path) {
  model::save_model(path, model_file());
}

void Trainer::save_checkpoint() {
  model::ModelFile file = model_file();
  optimizer_->save_state(params_, file.tensors);
  state_.lr_current = schedule_->current();
  state_.lr_best = schedule_->best();
  state_.lr_bad = schedule_->bad_validations();
  std::ostringstream rng;
  rng << rng_;
  state_.rng = rng.str();
  file.extra["train_state"] = state_.to_text();
  model::save_model(checkpoint_path_, file);
  spdlog::debug("checkpoint saved at step {}", state_.step);
}

bool Trainer::validate_now(double& ppl, double& bleu) {
  if (valid_.empty()) return false;
  model::LossOptions eval;
  eval.training = false;
  eval.backward = false;
  double nll = 0;
  int64_t tokens = 0;
  BatcherOptions batching;
  batching.max_sentences = 64;
  std::vector<size_t> order(valid_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return valid_[a].src.size() < valid_[b].src.size(); });
  Rng unused = make_rng(0);
  for (size_t begin = 0; begin < order.size(); begin += 64) {
    const std::vector<size_t> idx(order.begin() + long(begin),
                                  order.begin() + long(std::min(order.size(), begin + 64)));
    const Batch batch = make_batch(valid_, idx);
    const auto sums = model_->loss(batch, eval, unused);
    nll += sums.nll;
    tokens += sums.tokens;
  }
  ppl = std::exp(nll / double(std::max<int64_t>(tokens, 1)));
  // Greedy BLEU on (the first N of) the validation set, detokenized, 13a.
  size_t count = valid_.size();
  if (config_.valid_max_sentences > 0) count = std::min(count, size_t(config_.valid_max_sentences));
  std::vector<size_t> bleu_order(order);
  bleu_order.erase(
      std::remove_if(bleu_order.begin(), bleu_order.end(), [&](size_t i) { return i >= count; }),
      bleu_order.end());
  std::vector<std::string> hyps(count);
  decode::DecodeConfig greedy;
  greedy.beam_size = 1;
  greedy.normalization = decode::LengthNormalization::kNone;
  const text::Tokenizer detok;
  for (size_t begin = 0; begin < bleu_order.size(); begin += 64) {
    const std::vector<size_t> idx(
        bleu_order.begin() + long(begin),
        bleu_order.begin() + long(std::min(bleu_order.size(), begin + 64)));
    const Batch batch = make_batch(valid_, idx);
    const auto results = decode::translate_batch(*model_, batch, greedy);
    for (size_t i = 0; i < idx.size(); ++i) {
      std::vector<std::string> words;
      for (int32_t id : results[i].front().tokens) words.push_back(tgt_vocab_.token(id));
      hyps[idx[i]] = detok.detokenize(words);
    }
  }
  const std::vector<std::vector<std::string>> refs = {
      std::vector<std::string>(valid_refs_.begin(), valid_refs_.begin() + long(count))};
  bleu = eval::corpus_bleu(hyps, refs).score;
  return true;
}

void Trainer::metrics_row(double loss, float lr, double tps, double val_ppl, double val_bleu) {
  if (config_.metrics_file.empty()) return;
  const bool fresh = !fs::exists(config_.metrics_file) || fs::file_size(config_.metrics_file) == 0;
  std::ofstream out(config_.metrics_file, std::ios::app);
  if (fresh)
    out << "step\tepoch\tloss\tperplexity\tlr\ttokens_per_s\tval_ppl\tval_bleu\telapsed_s\n";
  char line[512];
  auto opt = [](double v, char* buf) {
    if (std::isnan(v)) {
      buf[0] = 0;
    } else {
      std::snprintf(buf, 32, "%.4f", v);
    }
  };
  char vp[32], vb[32];
  opt(val_ppl, vp);
  opt(val_bleu, vb);
  std::snprintf(line, sizeof line, "%lld\t%lld\t%.5f\t%.4f\t%.3g\t%.0f\t%s\t%s\t%.1f\n",
                static_cast<long long>(state_.step), static_cast<long long>(state_.epoch + 1), loss,
                std::exp(loss), static_cast<double>(lr), tps, vp, vb, state_.elapsed);
  out << line;
  if (!out) throw WriteError(config_.metrics_file + ": " + errno_message(errno));
}

TrainResult Trainer::run() {
  checkpoint_path_ = (fs::path(config_.output) / "checkpoint.heed").string();
  model_path_ = (fs::path(config_.output) / "model.heed").string();
  fs::create_directories(config_.output);
  io::check_writable(checkpoint_path_);

  model::ModelConfig model_config = config_.model;
  std::unique_ptr<model::ModelFile> resumed;
  if (config_.resume) {
    if (!fs::exists(checkpoint_path_)) {
      throw FileError(checkpoint_path_ + ": no checkpoint to resume from");
    }
    resumed = std::make_unique<model::ModelFile>(model::load_model(checkpoint_path_));
    if (!resumed->extra.count("train_state")) {
      throw FormatError(checkpoint_path_ + ": not a training checkpoint (no trainer state)");
    }
    model_config = resumed->config;
    src_vocab_ = resumed->src_vocab;
    tgt_vocab_ = resumed->tgt_vocab;
    resumed_vocab_ = true;
  }
  load_data();
  model_config.src_vocab_size = static_cast<int>(src_vocab_.size());
  model_config.tgt_vocab_size = static_cast<int>(tgt_vocab_.size());
  model_ = std::make_unique<model::Seq2Seq>(model_config, config_.precision);
  // Validation pairs are not length-filtered: one the attention cannot score is refused here,
  // before training, not at the first validation.
  if (const int64_t limit = model_->config().max_source_length(); limit > 0) {
    for (size_t i = 0; i < valid_.size(); ++i) {
      if (static_cast<int64_t>(valid_[i].src.size()) > limit) {
        throw DataError(at_line(config_.valid_src, static_cast<long long>(i + 1),
                                "source sentence of " + std::to_string(valid_[i].src.size()) +
                                    " tokens is longer than attention '" +
                                    model_->config().attention + "' can score (--max-positions " +
                                    std::to_string(limit) + ")"));
      }
    }
  }
  spdlog::info("model: {} ({} parameters, {})", model_->config().summary(),
               model_->parameters().numel(), onednn::precision_name(config_.precision));
  for (layers::Parameter* p : model_->parameters().all()) {
    params_.push_back({p->name, p->value.data(), p->grad.data(), size_t(p->value.numel())});
  }
  optimizer_ = make_optimizer(config_.optimizer);
  schedule_ = std::make_unique<LrSchedule>(config_.schedule);
  rng_ = make_rng(config_.seed, /*stream=*/3);
  if (resumed) {
    model::read_parameters(resumed->tensors, checkpoint_path_, model_->parameters());
    model_->weights_changed();
    optimizer_->load_state(params_, resumed->tensors);
    state_ = TrainerState::from_text(resumed->extra.at("train_state"), checkpoint_path_);
    schedule_->restore(state_.lr_current, state_.lr_best, state_.lr_bad);
    std::istringstream rng(state_.rng);
    rng >> rng_;
    spdlog::info("resumed from {} at step {} (epoch {})", checkpoint_path_, state_.step,
                 state_.epoch + 1);
    resumed.reset();
  } else {
    model_->initialize(config_.seed, config_.init_scale);
  }

  TrainResult result;
  const auto start = Clock::now();
  const double elapsed_before = state_.elapsed;
  auto elapsed = [&] {
    return elapsed_before + std::chrono::duration<double>(Clock::now() - start).count();
  };
  auto finish = [&](const std::string& reason) {
    result.stop_reason = reason;
    result.validated = !valid_.empty();
    result.steps = state_.step;
    result.epochs = state_.epoch;
    result.best_valid_ppl = std::isfinite(state_.best_ppl) ? state_.best_ppl : 0;
    result.best_valid_bleu = state_.best_bleu;
    result.seconds = state_.elapsed;
  };
  // Recent-update statistics for progress and metrics.
  double window_loss = 0, window_tokens = 0, window_seconds = 0;
  int64_t window_steps = 0;
  float lr = schedule_->lr(state_.step + 1);
  int64_t last_saved = state_.step;

  // Returns true when early stopping says stop. The extra validation at the end of a run only
  // keeps the best model: it does not step the learning-rate schedule or early stopping, so a
  // run made in stages (--time-limit, then --resume) follows the schedule of one run.
  auto do_validation = [&](bool scheduled) -> bool {
    double ppl = 0, bleu = 0;
    const double train_loss = window_steps ? window_loss / double(window_steps) : std::nan("");
    const double tps = window_seconds > 0 ? window_tokens / window_seconds : 0;
    if (!validate_now(ppl, bleu)) {
      metrics_row(train_loss, lr, tps, std::nan(""), std::nan(""));
      return false;
    }
    spdlog::info("step {} epoch {}: validation perplexity {:.2f}, BLEU {:.2f}", state_.step,
                 state_.epoch + 1, ppl, bleu);
    metrics_row(train_loss, lr, tps, ppl, bleu);
    if (scheduled) schedule_->on_validation(ppl);
    if (ppl < state_.best_ppl) {
      state_.best_ppl = ppl;
      state_.best_bleu = bleu;
      if (scheduled) state_.bad_validations = 0;
      save_model(model_path_);
      spdlog::info("new best model saved to {}", model_path_);
    } else if (scheduled) {
      ++state_.bad_validations;
    }
    return config_.patience > 0 && state_.bad_validations >= config_.patience;
  };

  if (stop_signal()) throw Interrupted(stop_signal());
  std::string reason;
  // A resumed run may already be at a limit.
  if (config_.max_steps > 0 && state_.step >= config_.max_steps) reason = "max-steps";
  if (config_.time_limit > 0 && state_.elapsed >= config_.time_limit) reason = "time-limit";
  while (reason.empty()) {
    if (config_.max_epochs > 0 && state_.epoch >= config_.max_epochs) {
      reason = "max-epochs";
      break;
    }
    const std::vector<std::vector<size_t>> plan =
        plan_epoch(train_, config_.batching, config_.seed, state_.epoch);
    for (; state_.next_batch < int64_t(plan.size());) {
      const auto t0 = Clock::now();
      Batch batch;
      {
        profile::Scope phase(profile::Phase::kBatching);
        batch = make_batch(train_, plan[size_t(state_.next_batch)]);
      }
      model::LossOptions options;
      options.label_smoothing = config_.label_smoothing;
      options.guided_alignment_weight = config_.guided_alignment_weight;
      lr = schedule_->lr(state_.step + 1);
      const UpdateResult update_result =
          update(*model_, *optimizer_, params_, batch, options, config_.clip_norm, lr, rng_);
      const layers::LossSums& sums = update_result.sums;
      const double loss = update_result.loss, norm = update_result.grad_norm;
      if (!update_result.applied) {
        throw DataError("step " + std::to_string(state_.step + 1) + ": the loss is not finite (" +
                        (std::isfinite(loss) ? "gradient norm " + std::to_string(norm)
                                             : "loss " + std::to_string(loss)) +
                        "); stopped without saving — " +
                        (fs::exists(checkpoint_path_)
                             ? checkpoint_path_ + " (step " + std::to_string(last_saved) + ")"
                             : std::string("no checkpoint")) +
                        " is intact; try a lower --lr or --clip");
      }
      ++state_.step;
      ++state_.next_batch;
      const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      state_.elapsed = elapsed();
      window_loss += loss;
      window_tokens += double(sums.tokens);
      window_seconds += seconds;
      ++window_steps;

      if (config_.kill_after_step > 0 && state_.step == config_.kill_after_step) {
        std::raise(SIGKILL);  // testing aid: dies like kill -9, between checkpoints
      }
      if (progress_) {
        TrainProgress p;
        p.step = state_.step;
        p.epoch = state_.epoch;
        p.loss = window_loss / double(window_steps);
        p.tokens_per_second = window_seconds > 0 ? window_tokens / window_seconds : 0;
        p.elapsed = state_.elapsed;
        p.lr = lr;
        double f = 0;
        if (config_.max_steps > 0) f = std::max(f, double(state_.step) / double(config_.max_steps));
        if (config_.max_epochs > 0) {
          f = std::max(f, (double(state_.epoch) + double(state_.next_batch) / double(plan.size())) /
                              double(config_.max_epochs));
        }
        if (config_.time_limit > 0) f = std::max(f, state_.elapsed / config_.time_limit);
        p.fraction = std::min(1.0, f);
        progress_(p);
      }
      bool stop_early = false;
      const bool validate = config_.valid_every > 0 && state_.step % config_.valid_every == 0;
      if (validate) {
        stop_early = do_validation(true);
        window_loss = window_tokens = window_seconds = 0;
        window_steps = 0;
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
          config_.save_every > 0 ? state_.step % config_.save_every == 0 : validate;
      if (periodic || !reason.empty() || stop_signal()) {
        save_checkpoint();
        last_saved = state_.step;
      }
      if (stop_signal()) {
        // Without validation data the last weights are the model, as at a normal end.
        if (valid_.empty()) save_model(model_path_);
        spdlog::warn("stopped by signal {} at step {}; resume with --resume", stop_signal(),
                     state_.step);
        throw Interrupted(stop_signal());
      }
      if (!reason.empty() || state_.next_batch == 0) break;
    }
  }
  // A final validation unless one just ran; without validation data the last model is the model.
  if (valid_.empty()) {
    save_model(model_path_);
  } else if (config_.valid_every == 0 || state_.step % config_.valid_every != 0) {
    do_validation(false);
    save_checkpoint();
  }
  finish(reason);
  return result;
}

}  // namespace

void TrainConfig::validate() const {
  const bool two = !train_src.empty() || !train_tgt.empty();
  if (two == !train_file.empty()) {
    throw ConfigError("give either --train-src and --train-tgt, or --train");
  }
  if (two && (train_src.empty() || train_tgt.empty())) {
    throw ConfigError("--train-src and --train-tgt go together");
  }
  if (valid_src.empty() != valid_tgt.empty()) {
    throw ConfigError("--valid-src and --valid-tgt go together");
  }
  if (src_vocab_file.empty() != tgt_vocab_file.empty()) {
    throw ConfigError("--src-vocab and --tgt-vocab go together");
  }
  if (output.empty()) throw ConfigError("--output DIR is required");
  if (max_steps < 0 || max_epochs < 0 || time_limit < 0) {
    throw ConfigError("--max-steps, --max-epochs and --time-limit must not be negative");
  }
  if (max_steps == 0 && max_epochs == 0 && time_limit == 0) {
    throw ConfigError("give at least one of --max-steps, --max-epochs, --time-limit");
  }
  if (max_length <= 0) throw ConfigError("--max-length must be positive");
  if (!(clip_norm >= 0)) throw ConfigError("--clip must not be negative");
  if (!(label_smoothing >= 0 && label_smoothing < 1)) {
    throw ConfigError("--label-smoothing must be in [0, 1)");
  }
  if (valid_every < 0 || save_every < 0 || patience < 0) {
    throw ConfigError("--valid-every, --save-every and --patience must not be negative");
  }
  batching.validate();
  optimizer.validate();
  schedule.validate();
  model::ModelConfig m = model;
  m.src_vocab_size = m.tgt_vocab_size = 8;
  m.validate();
  if (const int64_t limit = m.max_source_length(); limit > 0 && max_length > limit) {
    throw ConfigError("--max-length " + std::to_string(max_length) + " is more than attention '" +
                      m.attention + "' can score (--max-positions " + std::to_string(limit) +
                      "): lower --max-length or raise --max-positions");
  }
  // Inputs may be pipes (<(zcat corpus.gz)): nothing here reads them, and the trainer reads
  // every input exactly once.
  if (!guided_alignment.empty()) {
    const attention::AttentionTraits traits = attention::attention_info(m.attention).traits;
    if (!traits.position_weights || !traits.uses_query) {
      throw ConfigError("--guided-alignment: attention '" + m.attention +
                        "' has no weights over source positions per target step to guide");
    }
    if (!(guided_alignment_weight > 0.f && std::isfinite(guided_alignment_weight))) {
      throw ConfigError("--guided-alignment-weight must be a finite number > 0");
    }
  }
  for (const std::string* path : {&train_src, &train_tgt, &train_file, &valid_src, &valid_tgt,
                                  &src_vocab_file, &tgt_vocab_file, &guided_alignment}) {
    if (path->empty()) continue;
    std::error_code error;
    const fs::file_status status = fs::status(*path, error);
    if (!fs::exists(status)) throw FileError(*path + ": cannot open (no such file)");
    if (fs::is_directory(status)) throw FileError(*path + ": cannot open (is a directory)");
  }
  // Counting lines takes a pass of its own: only for regular files (the reader itself finds a
  // pipe that ends before its partner).
  auto check_counts = [](const std::string& source, const std::string& target) {
    if (fs::is_regular_file(source) && fs::is_regular_file(target)) {
      io::check_line_counts(source, target);
    }
  };
  if (!train_src.empty()) check_counts(train_src, train_tgt);
  if (!valid_src.empty()) check_counts(valid_src, valid_tgt);
  if (!guided_alignment.empty()) {
    check_counts(train_src.empty() ? train_file : train_src, guided_alignment);
  }
  if (!metrics_file.empty()) {
    // Found now rather than at the first validation, after minutes of training.
    if (fs::is_directory(metrics_file)) {
      throw WriteError(metrics_file + ": cannot write the metrics file (is a directory)");
    }
    std::ofstream probe(metrics_file, std::ios::app);
    if (!probe) {
      throw WriteError(metrics_file + ": cannot write the metrics file: " + errno_message(errno));
    }
  }
  std::error_code ec;
  fs::create_directories(output, ec);
  if (ec || !fs::is_directory(output)) {
    throw WriteError(output + ": cannot create the output directory" +
                     (ec ? ": " + ec.message() : std::string()));
  }
  io::check_writable((fs::path(output) / "checkpoint.heed").string());
}

TrainResult train(const TrainConfig& config,
                  const std::function<void(const TrainProgress&)>& progress) {
  config.validate();
  Trainer trainer(config, progress);
  return trainer.run();
}

}  // namespace heed::train
