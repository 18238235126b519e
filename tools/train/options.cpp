#include "train/options.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/shared_options.h"
#include "heed/attention/normalization.h"
#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/model/tokenizer_record.h"
#include "heed/text/bpe.h"

namespace heed::train_tool {
namespace {

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
void add_attention_options(cli::Group group, TrainCliConfig& cfg) {
  attention::Normalizer& normalizer = cfg.train.model.attention_normalizer;
  group("attention-normalizer",
        cli::choice(&normalizer, attention::to_string(normalizer), attention::parse_normalizer),
        "softmax or sparsemax (mechanisms with a normaliser)");
  for (const attention::DeclaredOption& option : attention::declared_options()) {
    const attention::OptionSpec& spec = option.spec;
    char range[96];
    std::snprintf(range, sizeof range, "; default %g", spec.default_value);
    const std::string help =
        spec.help + " (attention " + join(option.mechanisms, ", ") + range + ")";
    const cli::Bounds bounds = cli::between(spec.min, spec.max);
    group(spec.name,
          spec.integer ? cli::number_without_default(&cfg.attention_ints[spec.name], bounds)
                       : cli::number_without_default(&cfg.attention_reals[spec.name], bounds),
          help);
  }
}

}  // namespace

cli::ToolInfo tool_info() {
  return {"train", "--train-src SRC --train-tgt TGT --output DIR [options]",
          "Trains an RNN encoder-decoder with attention on tokenized parallel text (one sentence "
          "per line, tokens separated by spaces, usually the output of heed-tokenize --bpe). "
          "Writes DIR/model.heed (the best model) and DIR/checkpoint.heed (the last state, for "
          "--resume), and DIR/curves.svg (the learning curves, at every validation). Ctrl-C "
          "saves a checkpoint and exits 130. 'heed-train plot METRICS.tsv...' draws several "
          "runs' --metrics-file together (heed-train plot --help).",
          LogLevel::kInfo};
}

void add_options(cli::CommandLine& cl, TrainCliConfig& cli_cfg) {
  train::TrainConfig& cfg = cli_cfg.train;
  model::ModelConfig& m = cfg.model;
  // clang-format off
  cl.group("Data")
      ("train-src",       cli::text(&cfg.train_src), "training source file (tokenized)")
      ("train-tgt",       cli::text(&cfg.train_tgt),
                          "training target file, line-aligned with --train-src")
      ("train",           cli::text(&cfg.train_file),
                          "one training file of 'src ||| tgt' or 'src<TAB>tgt' lines")
      ("valid-src",       cli::text(&cfg.valid_src), "validation source file")
      ("valid-tgt",       cli::text(&cfg.valid_tgt), "validation target file")
      ("src-vocab",       cli::text(&cfg.src_vocab_file),
                          "source vocabulary (heed-tokenize vocab output); built from the data "
                          "otherwise")
      ("tgt-vocab",       cli::text(&cfg.tgt_vocab_file), "target vocabulary")
      ("vocab-size",      cli::number(&cfg.vocab_size, cli::at_least(0)),
                          "built vocabularies: at most this many ids, the 4 specials included "
                          "(0 = all)")
      ("vocab-min-count", cli::number(&cfg.vocab_min_count, cli::at_least(0)),
                          "built vocabularies: drop tokens seen fewer times")
      ("max-length",      cli::number(&cfg.max_length, cli::at_least(1)),
                          "drop training pairs with a side longer than this many tokens")
      ("bpe",             cli::text(&cli_cfg.bpe),
                          "BPE codes the data was encoded with (stored in the model for "
                          "heed-translate)")
      ("bpe-dropout",     cli::number(&cfg.bpe_dropout, cli::from_below(0, 1)),
                          "BPE-dropout: the training and validation text is tokenized but not "
                          "BPE-segmented, and every epoch segments the training text afresh "
                          "with --bpe, each merge dropped with this probability (validation: "
                          "plain BPE); 0 = off");
  cli::add_tokenizer_options(cl.group("Data"), &cli_cfg.tokenizer, cli::TokenizerUse::kRecord);
  cl.group("Model")
      // Checked as given, kept as written (mlp too): ModelConfig::validate resolves it, once.
      ("attention",        cli::checked(&m.attention, attention::canonical_attention_name),
                           "attention mechanism: " + join(attention::attention_names(), ", "))
      ("decoder",          cli::choice(&m.decoder, model::to_string(m.decoder),
                                       model::parse_decoder),
                           "luong (query = current state, then tanh(W_c [c; h])), bahdanau "
                           "(query = previous state, context fed into the RNN) or concat (query "
                           "= current state, the output layer reads [c; h] directly)")
      ("input-feeding",    cli::boolean_without_default(&m.input_feeding),
                           "Luong: feed the attentional vector to the next step (true/false; "
                           "default true)")
      ("no-input-feeding", cli::flag(&cli_cfg.no_input_feeding), "same as --input-feeding false")
      ("cell",             cli::choice(&m.cell, model::to_string(m.cell), model::parse_cell),
                           "lstm or gru")
      ("layers",           cli::number(&cli_cfg.layers, kLayers), "encoder and decoder layers")
      ("encoder-layers",   cli::number_without_default(&m.encoder_layers, kLayers),
                           "encoder layers (overrides --layers)")
      ("decoder-layers",   cli::number_without_default(&m.decoder_layers, kLayers),
                           "decoder layers (overrides --layers)")
      ("hidden",           cli::number(&m.hidden, kWidth), "decoder state and encoder output size")
      ("embed",            cli::number(&m.embed, kWidth), "embedding size")
      ("attention-dim",    cli::number(&m.attention_dim, cli::between(0, kWidth.max)),
                           "width A of additive-style scores and of multi-head's projections "
                           "(0 = --hidden)")
      ("unidirectional",   cli::flag(&cli_cfg.unidirectional),
                           "left-to-right encoder only (default: bidirectional)")
      ("bridge",           cli::choice(&m.bridge, model::to_string(m.bridge), model::parse_bridge),
                           "decoder initial state: dense (tanh of a layer over the encoder's "
                           "final states), zero, mean (of the encoder outputs), last (the "
                           "encoder's final states) or ff-pool (feed-forward attention pooling "
                           "of the encoder outputs)")
      ("dropout",          cli::number(&m.dropout, cli::from_below(0, 1)),
                           "dropout on embeddings, between layers and on outputs")
      ("dropout-src",      cli::number(&m.dropout_src, cli::from_below(0, 1)),
                           "drop whole source words: each token's embedding zeroed with this "
                           "probability (Marian's --dropout-src)")
      ("dropout-trg",      cli::number(&m.dropout_trg, cli::from_below(0, 1)),
                           "drop whole target words (the decoder's input tokens; Marian's "
                           "--dropout-trg)")
      ("tie-embeddings",   cli::flag(&m.tie_target_embeddings),
                           "the output projection is the target embedding matrix (Press & Wolf "
                           "2017); needs --embed equal to --hidden (concat decoder: to the "
                           "context width + --hidden)");
  add_attention_options(cl.group("Attention"), cli_cfg);
  cl.group("Training")
      ("output,o",                cli::text(&cfg.output), "output directory (created if missing)")
      ("max-steps",               cli::number(&cfg.max_steps, cli::at_least(0)),
                                  "stop after this many updates (0 = no limit)")
      ("max-epochs",              cli::number(&cfg.max_epochs, cli::at_least(0)),
                                  "stop after this many epochs (0 = no limit)")
      ("time-limit",              cli::number(&cfg.time_limit, cli::at_least(0)),
                                  "stop after this many seconds of training (0 = none)")
      ("batch-size",              cli::number(&cfg.batching.max_sentences, cli::at_least(1)),
                                  "sentence pairs per batch at most")
      ("batch-tokens",            cli::number(&cfg.batching.max_tokens, cli::at_least(0)),
                                  "padded tokens per batch at most (0 = no cap)")
      ("optimizer",               cli::choice(&cfg.optimizer.type,
                                              train::to_string(cfg.optimizer.type),
                                              train::parse_optimizer),
                                  "adam or sgd")
      ("lr",                      cli::number(&cfg.schedule.lr, cli::above(0)), "learning rate")
      ("lr-schedule",             cli::choice(&cfg.schedule.type,
                                              train::to_string(cfg.schedule.type),
                                              train::parse_lr_schedule),
                                  "constant, warmup, plateau (decay on a validation plateau), "
                                  "inv-sqrt (lr·√(warmup/step) after the warm-up) or cosine (to "
                                  "--min-lr at --max-steps)")
      ("warmup-steps",            cli::number(&cfg.schedule.warmup_steps, cli::at_least(0)),
                                  "linear warm-up over this many updates")
      ("lr-decay",                cli::number(&cfg.schedule.decay_factor, {0, 1, true, true}),
                                  "plateau: multiply the rate by this")
      ("lr-patience",             cli::number(&cfg.schedule.patience, cli::at_least(0)),
                                  "plateau: validations without improvement before decaying")
      ("min-lr",                  cli::number(&cfg.schedule.min_lr, cli::at_least(0)),
                                  "floor of the plateau, inv-sqrt and cosine schedules")
      ("exponential-smoothing",   cli::number(&cfg.ema_decay, cli::from_below(0, 1)),
                                  "keep a moving average of the weights, avg += d·(w − avg) after "
                                  "each update with d = max(this, 1 − (t+1)/(t+10)) (Marian's); "
                                  "validation and saved models use it (0 = off)")
      ("momentum",                cli::number(&cfg.optimizer.momentum, cli::from_below(0, 1)),
                                  "SGD momentum")
      ("clip",                    cli::number(&cfg.clip_norm, cli::at_least(0)),
                                  "global gradient-norm clipping (0 = off)")
      ("label-smoothing",         cli::number(&cfg.label_smoothing, cli::from_below(0, 1)),
                                  "label smoothing epsilon")
      ("guided-alignment",        cli::text(&cfg.guided_alignment),
                                  "zero-based Pharaoh word links, one line per training pair "
                                  "(heed-align ibm2 output): an extra loss pulls the attention "
                                  "towards them")
      ("guided-alignment-weight", cli::number(&cfg.guided_alignment_weight, cli::above(0)),
                                  "weight of the guided-alignment loss")
      ("init-scale",              cli::number(&cfg.init_scale, cli::above(0)),
                                  "parameters start uniform in [-x, x]")
      ("valid-every",             cli::number(&cfg.valid_every, cli::at_least(0)),
                                  "updates between validations (0 = at the end only)")
      ("valid-bleu-sentences",    cli::number(&cfg.valid_max_sentences, cli::at_least(0)),
                                  "greedy BLEU on the first N validation pairs (0 = all)")
      ("save-every",              cli::number(&cfg.save_every, cli::at_least(0)),
                                  "updates between checkpoints (0 = at validations)")
      ("patience",                cli::number(&cfg.patience, cli::at_least(0)),
                                  "early stopping after this many validations without a better "
                                  "--valid-metric (0 = off)")
      // "perplexity": train::to_string names the metric for logs ("BLEU"), not for options.
      ("valid-metric",            cli::choice(&cfg.valid_metric, "perplexity",
                                              train::parse_valid_metric),
                                  "perplexity or bleu: picks the best model (DIR/model.heed) and "
                                  "drives --patience and the plateau schedule")
      ("log-every",               cli::number(&cfg.log_every, cli::at_least(0)),
                                  "a metrics-file row (loss, lr, tokens/s) every this many updates "
                                  "(0 = at validations)")
      ("keep-models",             cli::number(&cfg.keep_models, cli::at_least(0)),
                                  "also save the model of each of the last N checkpoints as "
                                  "DIR/model.step-K.heed (for heed-average)");
  cli::add_precision_option(cl.group("Training"), &cfg.precision,
                            "f32 or bf16 (bf16 matmuls and RNNs, f32 master weights and attention scores)");
  cl.group("Training")
      ("resume",                  cli::flag(&cfg.resume),
                                  "continue from DIR/checkpoint.heed exactly where it stopped")
      ("overwrite",               cli::flag(&cfg.overwrite),
                                  "start a new run in a directory that holds another run's "
                                  "checkpoint (its checkpoint and models are removed first; "
                                  "without it that is refused)")
      ("metrics-file",            cli::text(&cfg.metrics_file),
                                  "append TSV rows (step, epoch, loss, perplexity, lr, tokens/s, "
                                  "val-ppl, val-BLEU)")
      ("profile",                 cli::text(&cfg.profile_file),
                                  "write a TSV of where the updates after the first metrics "
                                  "window spent their time, phase by phase (encoder, decoder RNN, "
                                  "attention, output, optimizer, the rest)")
      ("mpi-timeout",             cli::number(&cli_cfg.mpi_timeout, cli::above(0)),
                                  "under mpirun: seconds a process waits for the others to "
                                  "exchange gradients before it stops with an error (a process "
                                  "died or hangs)");
  // clang-format on
}

bool parse_options(int argc, char** argv, TrainCliConfig& cli_cfg) {
  cli::CommandLine cl(tool_info());
  add_options(cl, cli_cfg);
  if (!cl.parse(argc, argv)) return false;
  train::TrainConfig& cfg = cli_cfg.train;
  for (const auto& [name, value] : cli_cfg.attention_ints) {
    if (cl.given(name)) cfg.model.attention_options[name] = double(value);
  }
  for (const auto& [name, value] : cli_cfg.attention_reals) {
    if (cl.given(name)) cfg.model.attention_options[name] = value;
  }
  if (cli_cfg.no_input_feeding) cfg.model.input_feeding = false;
  if (cfg.model.decoder != model::DecoderType::kLuong && cl.given("input-feeding") &&
      cfg.model.input_feeding) {
    throw ConfigError(cfg.model.decoder == model::DecoderType::kBahdanau
                          ? "--input-feeding is a Luong notion; the Bahdanau decoder feeds the "
                            "context"
                          : "--input-feeding is a Luong notion; the concat decoder has no "
                            "attentional vector to feed");
  }
  if (cfg.model.decoder != model::DecoderType::kLuong) cfg.model.input_feeding = false;
  if (!cl.given("encoder-layers")) cfg.model.encoder_layers = cli_cfg.layers;
  if (!cl.given("decoder-layers")) cfg.model.decoder_layers = cli_cfg.layers;
  cfg.model.bidirectional = !cli_cfg.unidirectional;
  cli::check_precision_supported(cfg.precision);
  cfg.seed = cl.common().seed;
  for (const char* option :
       {"attention", "decoder", "cell", "hidden", "embed", "attention-dim", "layers",
        "encoder-layers", "decoder-layers", "bridge", "dropout", "dropout-src", "dropout-trg",
        "tie-embeddings", "unidirectional", "lr", "vocab-size", "vocab-min-count"}) {
    if (cl.given(option)) cfg.given.insert(option);
  }
  cli_cfg.threads = cl.threads();
  const text::TokenizerOptions& tok = cli_cfg.tokenizer;
  tok.validate();
  // The tokenizer is recorded when the data came from heed-tokenize (so heed-translate can take
  // raw text); without any of these options the model works on tokens as given.
  if (!cli_cfg.bpe.empty() || cl.given("tokenizer-mode") || cl.given("tokenizer-normalize") ||
      tok.lowercase || tok.case_feature) {
    model::record_tokenizer(
        {tok, cli_cfg.bpe.empty() ? std::string() : checked_bpe_codes(cli_cfg.bpe)}, cfg.extra);
  }
  cfg.kill_after_step = kill_after_step_from_environment();
  return true;
}

int64_t kill_after_step_from_environment() {
  const char* value = std::getenv("HEED_TEST_KILL_AFTER_STEP");
  if (value == nullptr) return 0;
  const std::string text = value;
  int64_t step = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), step);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || step < 0) {
    throw ConfigError(
        "HEED_TEST_KILL_AFTER_STEP (a test hook: heed-train kills itself after "
        "this update) must be an integer >= 0, not '" +
        text + "'");
  }
  return step;
}

}  // namespace heed::train_tool
