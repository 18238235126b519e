// heed-train: trains an attention encoder-decoder on tokenized parallel text and writes a
// model file (and a resumable checkpoint) into an output directory.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "common/options.h"
#include "common/progress.h"
#include "common/run.h"
#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/onednn/context.h"
#include "heed/text/bpe.h"
#include "heed/text/tokenizer.h"
#include "heed/train/communicator.h"
#include "heed/train/signals.h"
#include "heed/train/trainer.h"

namespace {

using namespace heed;
namespace po = boost::program_options;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path + ": cannot open: " + errno_message(errno));
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Stacked RNN layers and layer widths a model may have.
const cli::Bounds kLayers = cli::between(1, model::kMaxLayers);
const cli::Bounds kWidth = cli::between(1, model::kMaxWidth);

// The codes as heed-translate will read them from the model: refused now rather than after
// training (BpeCodes::parse also refuses invalid UTF-8, which the JSON model header could not
// hold).
std::string checked_bpe_codes(const std::string& path) {
  std::string codes = read_text(path);
  if (text::BpeCodes::parse(codes, path).merges().empty()) {
    throw FormatError(path +
                      ": no merges (an empty BPE codes file leaves every word in characters)");
  }
  return codes;
}

// --attention-normalizer and every option a mechanism declares (attention/registry.h), so that a
// new mechanism's options appear here without an edit. Values are checked against the chosen
// mechanism when the model config is validated.
void add_attention_options(po::options_description& group, std::string& normalizer,
                           std::map<std::string, int64_t>& ints,
                           std::map<std::string, double>& reals) {
  group.add_options()(
      "attention-normalizer",
      cli::checked(&normalizer, [](const std::string& v) { attention::parse_normalizer(v); }),
      "softmax or sparsemax (mechanisms with a normaliser)");
  for (const attention::DeclaredOption& option : attention::declared_options()) {
    const attention::OptionSpec& spec = option.spec;
    char range[96];
    std::snprintf(range, sizeof range, "; default %g", spec.default_value);
    const std::string help =
        spec.help + " (attention " + join(option.mechanisms, ", ") + range + ")";
    if (spec.integer) {
      group.add_options()(
          spec.name.c_str(),
          cli::number_without_default(&ints[spec.name], cli::between(spec.min, spec.max)),
          help.c_str());
    } else {
      group.add_options()(
          spec.name.c_str(),
          cli::number_without_default(&reals[spec.name], cli::between(spec.min, spec.max)),
          help.c_str());
    }
  }
}

bool parse_options(int argc, char** argv, train::TrainConfig& cfg, int& threads,
                   double& mpi_timeout) {
  cli::CommandLine cl({"train", "--train-src SRC --train-tgt TGT --output DIR [options]",
                       "Trains an RNN encoder-decoder with attention on tokenized parallel text "
                       "(one sentence per line, tokens separated by spaces, usually the output of "
                       "heed-tokenize --bpe). Writes DIR/model.heed (the best model) and "
                       "DIR/checkpoint.heed (the last state, for --resume). Ctrl-C saves a "
                       "checkpoint and exits 130.",
                       LogLevel::kInfo});
  std::string attention = cfg.model.attention, decoder = "luong", cell = "lstm", bridge = "dense";
  std::string precision = "f32", optimizer = "adam", schedule = "plateau",
              valid_metric = "perplexity";
  std::string normalizer = cfg.model.attention_normalizer;
  std::map<std::string, int64_t> attention_ints;
  std::map<std::string, double> attention_reals;
  bool unidirectional = false, no_input_feeding = false;
  int layers = 1;
  std::string bpe, tok_mode = "conservative";
  bool tok_case_feature = false, tok_lowercase = false;
  cl.group("Data").add_options()("train-src", po::value(&cfg.train_src),
                                 "training source file (tokenized)")(
      "train-tgt", po::value(&cfg.train_tgt),
      "training target file, line-aligned with --train-src")(
      "train", po::value(&cfg.train_file),
      "one training file of 'src ||| tgt' or 'src<TAB>tgt' lines")(
      "valid-src", po::value(&cfg.valid_src), "validation source file")(
      "valid-tgt", po::value(&cfg.valid_tgt), "validation target file")(
      "src-vocab", po::value(&cfg.src_vocab_file),
      "source vocabulary (heed-tokenize vocab output); built from the data otherwise")(
      "tgt-vocab", po::value(&cfg.tgt_vocab_file), "target vocabulary")(
      "vocab-size", cli::number(&cfg.vocab_size, cli::at_least(0)),
      "built vocabularies: at most this many ids, the 4 specials included (0 = all)")(
      "vocab-min-count", cli::number(&cfg.vocab_min_count, cli::at_least(0)),
      "built vocabularies: drop tokens seen fewer times")(
      "max-length", cli::number(&cfg.max_length, cli::at_least(1)),
      "drop training pairs with a side longer than this many tokens")(
      "bpe", po::value(&bpe),
      "BPE codes the data was encoded with (stored in the model for heed-translate)")(
      "tokenizer-mode",
      cli::checked(&tok_mode, [](const std::string& v) { text::parse_tokenize_mode(v); }),
      "heed-tokenize --mode the data was tokenized with (stored in the model)")(
      "tokenizer-case-feature", po::bool_switch(&tok_case_feature),
      "the data was tokenized with --case-feature")("tokenizer-lowercase",
                                                    po::bool_switch(&tok_lowercase),
                                                    "the data was tokenized with --lowercase");
  cl.group("Model").add_options()(
      "attention", cli::checked(&attention, attention::canonical_attention_name),
      ("attention mechanism: " + join(attention::attention_names(), ", ")).c_str())(
      "decoder", cli::checked(&decoder, model::parse_decoder),
      "luong (query = current state) or bahdanau (query = previous state)")(
      "input-feeding",
      po::value(&cfg.model.input_feeding)->default_value(true)->implicit_value(true),
      "Luong: feed the attentional vector to the next step (true/false)")(
      "no-input-feeding", po::bool_switch(&no_input_feeding), "same as --input-feeding false")(
      "cell", cli::checked(&cell, model::parse_cell), "lstm or gru")(
      "layers", cli::number(&layers, kLayers), "encoder and decoder layers")(
      "encoder-layers", cli::number_without_default(&cfg.model.encoder_layers, kLayers),
      "encoder layers (overrides --layers)")(
      "decoder-layers", cli::number_without_default(&cfg.model.decoder_layers, kLayers),
      "decoder layers (overrides --layers)")("hidden", cli::number(&cfg.model.hidden, kWidth),
                                             "decoder state and encoder output size")(
      "embed", cli::number(&cfg.model.embed, kWidth), "embedding size")(
      "attention-dim", cli::number(&cfg.model.attention_dim, cli::between(0, kWidth.max)),
      "width A of additive-style scores and of multi-head's projections (0 = --hidden)")(
      "unidirectional", po::bool_switch(&unidirectional),
      "left-to-right encoder only (default: bidirectional)")(
      "bridge", cli::checked(&bridge, model::parse_bridge),
      "decoder initial state: dense (tanh of a layer over the encoder's final states), zero, "
      "mean (of the encoder outputs), last (the encoder's final states) or ff-pool "
      "(feed-forward attention pooling of the encoder outputs)")(
      "dropout", cli::number(&cfg.model.dropout, cli::from_below(0, 1)),
      "dropout on embeddings, between layers and on outputs")(
      "tie-embeddings", po::bool_switch(&cfg.model.tie_target_embeddings),
      "the output projection is the target embedding matrix (Press & Wolf 2017); needs --embed "
      "equal to --hidden");
  add_attention_options(cl.group("Attention"), normalizer, attention_ints, attention_reals);
  cl.group("Training")
      .add_options()("output,o", po::value(&cfg.output), "output directory (created if missing)")(
          "max-steps", cli::number(&cfg.max_steps, cli::at_least(0)),
          "stop after this many updates (0 = no limit)")(
          "max-epochs", cli::number(&cfg.max_epochs, cli::at_least(0)),
          "stop after this many epochs (0 = no limit)")(
          "time-limit", cli::number(&cfg.time_limit, cli::at_least(0)),
          "stop after this many seconds of training (0 = none)")(
          "batch-size", cli::number(&cfg.batching.max_sentences, cli::at_least(1)),
          "sentence pairs per batch at most")(
          "batch-tokens", cli::number(&cfg.batching.max_tokens, cli::at_least(0)),
          "padded tokens per batch at most (0 = no cap)")(
          "optimizer", cli::checked(&optimizer, train::parse_optimizer), "adam or sgd")(
          "lr", cli::number(&cfg.schedule.lr, cli::above(0)), "learning rate")(
          "lr-schedule", cli::checked(&schedule, train::parse_lr_schedule),
          "constant, warmup, plateau (decay on a validation plateau), inv-sqrt (lr·√(warmup/step) "
          "after the warm-up) or cosine (to --min-lr at --max-steps)")(
          "warmup-steps", cli::number(&cfg.schedule.warmup_steps, cli::at_least(0)),
          "linear warm-up over this many updates")(
          "lr-decay", cli::number(&cfg.schedule.decay_factor, {0, 1, true, true}),
          "plateau: multiply the rate by this")(
          "lr-patience", cli::number(&cfg.schedule.patience, cli::at_least(0)),
          "plateau: validations without improvement before decaying")(
          "min-lr", cli::number(&cfg.schedule.min_lr, cli::at_least(0)),
          "floor of the plateau, inv-sqrt and cosine schedules")(
          "exponential-smoothing", cli::number(&cfg.ema_decay, cli::from_below(0, 1)),
          "keep a moving average of the weights, avg += d·(w − avg) after each update with "
          "d = max(this, 1 − (t+1)/(t+10)) (Marian's); validation and saved models use it (0 = "
          "off)")("momentum", cli::number(&cfg.optimizer.momentum, cli::from_below(0, 1)),
                  "SGD momentum")("clip", cli::number(&cfg.clip_norm, cli::at_least(0)),
                                  "global gradient-norm clipping (0 = off)")(
          "label-smoothing", cli::number(&cfg.label_smoothing, cli::from_below(0, 1)),
          "label smoothing epsilon")(
          "guided-alignment", po::value(&cfg.guided_alignment),
          "zero-based Pharaoh word links, one line per training pair (heed-align ibm2 output): "
          "an extra loss pulls the attention towards them")(
          "guided-alignment-weight", cli::number(&cfg.guided_alignment_weight, cli::above(0)),
          "weight of the guided-alignment loss")("init-scale",
                                                 cli::number(&cfg.init_scale, cli::above(0)),
                                                 "parameters start uniform in [-x, x]")(
          "valid-every", cli::number(&cfg.valid_every, cli::at_least(0)),
          "updates between validations (0 = at the end only)")(
          "valid-bleu-sentences", cli::number(&cfg.valid_max_sentences, cli::at_least(0)),
          "greedy BLEU on the first N validation pairs (0 = all)")(
          "save-every", cli::number(&cfg.save_every, cli::at_least(0)),
          "updates between checkpoints (0 = at validations)")(
          "patience", cli::number(&cfg.patience, cli::at_least(0)),
          "early stopping after this many validations without a better --valid-metric (0 = off)")(
          "valid-metric", cli::checked(&valid_metric, train::parse_valid_metric),
          "perplexity or bleu: picks the best model (DIR/model.heed) and drives --patience and the "
          "plateau schedule")(
          "log-every", cli::number(&cfg.log_every, cli::at_least(0)),
          "a metrics-file row (loss, lr, tokens/s) every this many updates (0 = at validations)")(
          "keep-models", cli::number(&cfg.keep_models, cli::at_least(0)),
          "also save the model of each of the last N checkpoints as DIR/model.step-K.heed (for "
          "heed-average)")("precision", cli::checked(&precision, onednn::parse_precision),
                           "f32 or bf16 (bf16 matmuls and RNNs, f32 master weights)")(
          "resume", po::bool_switch(&cfg.resume),
          "continue from DIR/checkpoint.heed exactly where it stopped")(
          "overwrite", po::bool_switch(&cfg.overwrite),
          "start a new run in a directory that holds another run's checkpoint (its checkpoint and "
          "models are removed first; without it that is refused)")(
          "metrics-file", po::value(&cfg.metrics_file),
          "append TSV rows (step, epoch, loss, perplexity, lr, tokens/s, val-ppl, val-BLEU)")(
          "mpi-timeout", cli::number(&mpi_timeout, cli::above(0)),
          "under mpirun: seconds a process waits for the others to exchange gradients before it "
          "stops with an error (a process died or hangs)")(
          "kill-after-step", cli::number(&cfg.kill_after_step, cli::at_least(0)),
          "testing aid: die by SIGKILL after this update");
  if (!cl.parse(argc, argv)) return false;
  // Canonicalised with the rest of the attention when the model config is validated.
  cfg.model.attention = attention;
  cfg.model.decoder = model::parse_decoder(decoder);
  cfg.model.cell = model::parse_cell(cell);
  cfg.model.bridge = model::parse_bridge(bridge);
  cfg.model.attention_normalizer = normalizer;
  for (const auto& [name, value] : attention_ints) {
    if (cl.given(name)) cfg.model.attention_options[name] = double(value);
  }
  for (const auto& [name, value] : attention_reals) {
    if (cl.given(name)) cfg.model.attention_options[name] = value;
  }
  if (no_input_feeding) cfg.model.input_feeding = false;
  if (cfg.model.decoder == model::DecoderType::kBahdanau && cl.given("input-feeding") &&
      cfg.model.input_feeding) {
    throw ConfigError("--input-feeding is a Luong notion; the Bahdanau decoder feeds the context");
  }
  if (cfg.model.decoder == model::DecoderType::kBahdanau) cfg.model.input_feeding = false;
  if (!cl.given("encoder-layers")) cfg.model.encoder_layers = layers;
  if (!cl.given("decoder-layers")) cfg.model.decoder_layers = layers;
  cfg.model.bidirectional = !unidirectional;
  cfg.precision = onednn::parse_precision(precision);
  if (cfg.precision == onednn::Precision::kBF16 && !onednn::bf16_supported()) {
    throw ConfigError(
        "--precision bf16: this CPU has no bf16 support in oneDNN (needs AVX512-BF16 or AMX); use "
        "f32");
  }
  cfg.optimizer.type = train::parse_optimizer(optimizer);
  cfg.schedule.type = train::parse_lr_schedule(schedule);
  cfg.valid_metric = train::parse_valid_metric(valid_metric);
  cfg.seed = cl.common().seed;
  for (const char* option : {"attention", "decoder", "cell", "hidden", "embed", "attention-dim",
                             "layers", "encoder-layers", "decoder-layers", "bridge", "dropout",
                             "tie-embeddings", "unidirectional", "lr"}) {
    if (cl.given(option)) cfg.given.insert(option);
  }
  threads = cl.threads();
  text::TokenizerOptions tok;
  tok.mode = text::parse_tokenize_mode(tok_mode);
  tok.lowercase = tok_lowercase;
  tok.case_feature = tok_case_feature;
  tok.validate();
  // The tokenizer is recorded when the data came from heed-tokenize (so heed-translate can take
  // raw text); without any of these options the model works on tokens as given.
  if (!bpe.empty() || cl.given("tokenizer-mode") || tok_lowercase || tok_case_feature) {
    cfg.extra["tokenizer_mode"] = std::string(text::to_string(tok.mode));
    cfg.extra["tokenizer_lowercase"] = tok_lowercase ? "1" : "0";
    cfg.extra["tokenizer_case_feature"] = tok_case_feature ? "1" : "0";
    if (!bpe.empty()) cfg.extra["bpe_codes"] = checked_bpe_codes(bpe);
  }
  return true;
}

int train_main(int argc, char** argv) {
  train::TrainConfig cfg;
  int threads = 0;
  double mpi_timeout = 300;
  if (!parse_options(argc, argv, cfg, threads, mpi_timeout)) return 0;
  // Under mpirun every process logs only warnings and errors, but rank 0, which logs as usual.
  const train::Communicator& world = train::world(mpi_timeout);
  if (world.rank() != 0 && spdlog::get_level() < spdlog::level::warn) {
    spdlog::set_level(spdlog::level::warn);
  }
  onednn::set_threads(threads);
  onednn::log_backend_info();
  train::install_stop_handlers();
  cli::Progress bar;
  double last_log = -1e9;
  const train::TrainResult result = train::train(cfg, [&](const train::TrainProgress& p) {
    char text[160];
    std::snprintf(text, sizeof text, "step %lld ep %lld loss %.3f %.0f tok/s lr %.2g",
                  static_cast<long long>(p.step), static_cast<long long>(p.epoch + 1), p.loss,
                  p.tokens_per_second, static_cast<double>(p.lr));
    if (bar.active()) {
      bar.update(p.fraction, text);
    } else if (p.elapsed - last_log >= 60) {
      last_log = p.elapsed;
      spdlog::info("{} ({} elapsed)", text, cli::format_duration(p.elapsed));
    }
  });
  bar.clear();
  const std::string validation =
      result.validated
          ? fmt::format("best model at step {}: validation perplexity {:.2f}, BLEU {:.2f}",
                        result.best_step, result.best_valid_ppl, result.best_valid_bleu)
          : std::string("no validation data (the model is the last one)");
  spdlog::info("done: {} updates, {} epochs, {:.0f} s, stopped by {}; {}", result.steps,
               result.epochs, result.seconds, result.stop_reason, validation);
  if (result.run_steps > 0 && result.run_seconds > 0) {
    spdlog::info(
        "throughput: {:.0f} target tokens/s with {} process{}; summing gradients {:.3f} ms per "
        "update ({:.1f}% of the time)",
        result.tokens / result.run_seconds, result.processes, result.processes > 1 ? "es" : "",
        1e3 * result.communication_seconds / double(result.run_steps),
        100 * result.communication_seconds / result.run_seconds);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  heed::cli::prefer_huge_pages(argv);
  return heed::train::finish_world(heed::cli::run_tool(argc, argv, "train", train_main));
}
