#include "heed/train/config.h"

#include <cmath>
#include <filesystem>
#include <string>
#include <utility>

#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/io/parallel_corpus.h"
#include "heed/model/tokenizer_record.h"

namespace heed::train {

namespace fs = std::filesystem;

void TrainConfig::validate() {
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
  if (overwrite && resume) {
    throw ConfigError(
        "--overwrite and --resume contradict each other: --resume continues the "
        "run in the directory, --overwrite starts a new one there");
  }
  if (!(bpe_dropout >= 0.f && bpe_dropout < 1.f)) {
    throw ConfigError("--bpe-dropout must be in [0, 1) (0 = off)");
  }
  if (bpe_dropout > 0.f) {
    if (!extra.count(model::kBpeCodesKey)) {
      throw ConfigError(
          "--bpe-dropout needs --bpe CODES: the codes it segments the tokenized training text "
          "with");
    }
    if (!src_vocab_file.empty()) {
      throw ConfigError(
          "--bpe-dropout builds the vocabularies itself, to hold every token a segmentation with "
          "dropped merges can give: a vocabulary file (--src-vocab, --tgt-vocab) would map "
          "some of them to <unk>");
    }
    for (const char* option : {"vocab-size", "vocab-min-count"}) {
      if (given.count(option)) {
        throw ConfigError(std::string("--") + option +
                          " does not apply with --bpe-dropout: the vocabularies hold every token "
                          "a segmentation with dropped merges can give (their size follows from "
                          "the BPE codes: fewer merges, fewer tokens)");
      }
    }
    if (!guided_alignment.empty()) {
      throw ConfigError(
          "--guided-alignment with --bpe-dropout is not supported yet: the links would have to "
          "follow each epoch's segmentation");
    }
  }
  if (valid_src.empty()) {
    // Options that act on validation would be ignored without its data.
    const TrainConfig defaults;
    for (const auto& [option, set] :
         {std::pair{"--patience", patience != defaults.patience},
          std::pair{"--valid-metric", valid_metric != defaults.valid_metric},
          std::pair{"--valid-bleu-sentences",
                    valid_max_sentences != defaults.valid_max_sentences}}) {
      if (set) {
        throw ConfigError(std::string(option) +
                          " acts on validation: give the validation data (--valid-src, "
                          "--valid-tgt)");
      }
    }
  }
  batching.validate();
  optimizer.validate();
  schedule_config().validate();
  if (!(ema_decay >= 0.f && ema_decay < 1.f)) {
    throw ConfigError("--exponential-smoothing must be in [0, 1) (0 = off)");
  }
  if (log_every < 0 || keep_models < 0) {
    throw ConfigError("--log-every and --keep-models must not be negative");
  }
  // The model config carries what it resolves: the trainer builds the model from it as it is.
  const attention::ResolvedAttention& attention = model.validate();
  if (const int64_t limit = model.max_source_length(); limit > 0 && max_length > limit) {
    throw ConfigError("--max-length " + std::to_string(max_length) + " is more than attention '" +
                      attention.name() + "' can score (--max-positions " + std::to_string(limit) +
                      "): lower --max-length or raise --max-positions");
  }
  // Inputs may be pipes (<(zcat corpus.gz)): nothing here reads them, and the trainer reads
  // every input exactly once.
  if (!guided_alignment.empty()) {
    const attention::AttentionTraits& traits = attention.traits();
    if (!traits.position_weights || !traits.uses_query) {
      throw ConfigError("--guided-alignment: attention '" + attention.name() +
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
  // What a run writes is not looked at here: the metrics file and the output directory are
  // checked (the directory made) by the steps that write them (MetricsWriter, OutputDirLock),
  // first thing in training, before any data is read.
}

LrScheduleConfig TrainConfig::schedule_config() const {
  LrScheduleConfig s = schedule;
  s.total_steps = max_steps;
  return s;
}

ValidMetric parse_valid_metric(const std::string& name) {
  if (name == "perplexity" || name == "ppl") return ValidMetric::kPerplexity;
  if (name == "bleu") return ValidMetric::kBleu;
  throw ConfigError("--valid-metric: unknown value '" + name + "' (expected perplexity or bleu)");
}

std::string to_string(ValidMetric metric) {
  return metric == ValidMetric::kBleu ? "BLEU" : "perplexity";
}

}  // namespace heed::train
