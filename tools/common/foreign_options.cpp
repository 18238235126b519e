#include "common/foreign_options.h"

namespace heed::cli {

const std::vector<ForeignOption>& foreign_options() {
  using H = Habit;
  // The first entry that applies to a tool wins: a tool-scoped one before a general one.
  // clang-format off
  static const std::vector<ForeignOption> table = {
      // fast_align (heed-align ibm2 is its model; -d, -r and -i mean what they mean there).
      {"-v",  "fast_align", "align", "variational-bayes", H::kMisread,
       "fast_align's variational Bayes is --variational-bayes here (its '-d -o -v' is "
       "'--favor-diagonal --optimize-tension --variational-bayes'); heed's -v, a more detailed "
       "log, is --verbose"},
      {"-I",  "fast_align", "align", "iterations",        H::kAlias,   "EM iterations"},
      {"-T",  "fast_align", "align", "diagonal-tension",  H::kAlias,   "starting tension"},
      {"-q",  "fast_align", "align", "p0",                H::kMisread,
       "fast_align's null-word probability is --p0 here; heed's -q, a quieter log, is --quiet"},
      {"-a",  "fast_align", "align", "alpha",             H::kAlias,   "Dirichlet concentration"},
      {"-N",  "fast_align", "align", "no-null-word",      H::kAlias,   "no null word"},
      {"-p",  "fast_align", "align", "lexical-table",     H::kRefused,
       "heed writes the learned table with --lexical-table FILE, as probabilities "
       "('from<TAB>to<TAB>p'), not fast_align's log probabilities"},
      // sacreBLEU (heed-score computes its BLEU and chrF).
      {"-i",  "sacreBLEU",  "score", "hyp",              H::kAlias,   "the hypothesis file"},
      {"--input", "sacreBLEU", "score", "hyp",           H::kAlias,   "the hypothesis file"},
      {"-tok", "sacreBLEU", "score", "tokenize",         H::kAlias,   "BLEU tokenization"},
      {"-lc", "sacreBLEU",  "score", "lowercase",        H::kRefused,
       "sacreBLEU lowercases for BLEU alone (for chrF with --chrf-lowercase); heed's --lowercase "
       "lowercases for every metric: give it with -m bleu for sacreBLEU's -lc"},
      {"-w",  "sacreBLEU",  "score", "width",            H::kAlias,   "decimals printed"},
      {"-f",  "sacreBLEU",  "score", "format",           H::kAlias,   "output format"},
      {"-cw", "sacreBLEU",  "score", "chrf-word-order",  H::kAlias,   "chrF word n-gram order"},
      {"--confidence-n", "sacreBLEU", "score", "bootstrap", H::kAlias, "resamples of --confidence"},
      {"-t",  "sacreBLEU",  "score", "ref",              H::kRefused,
       "heed-score reads references from files: give -r FILE ('sacrebleu -t SET -l PAIR --echo "
       "ref' writes one)"},
      {"--test-set", "sacreBLEU", "score", "ref",        H::kRefused,
       "heed-score reads references from files: give -r FILE ('sacrebleu -t SET -l PAIR --echo "
       "ref' writes one)"},
      {"--paired-bs", "sacreBLEU", "score", "bootstrap", H::kRefused,
       "heed-score compares the --hyp files it is given by paired bootstrap with --bootstrap N "
       "(sacreBLEU's --paired-bs is --bootstrap 1000)"},
      {"-s",  "sacreBLEU",  "score", "tokenize",         H::kRefused,
       "heed's BLEU smooths as sacreBLEU's default ('exp'); there is no other smoothing"},
      {"-b",  "sacreBLEU",  "score", "format",           H::kRefused,
       "heed-score prints the bare numbers with --format tsv (a header line, then the scores)"},
      // Marian.
      {"--cpu-threads",     "Marian", "", "threads",          H::kAlias, "CPU threads"},
      {"-c",                "Marian", "", "config",           H::kAlias, "config file"},
      {"--early-stopping",  "Marian", "", "patience",         H::kAlias,
       "validations without improvement before stopping"},
      {"--after-batches",   "Marian", "", "max-steps",        H::kAlias, "updates before stopping"},
      {"--after-epochs",    "Marian", "", "max-epochs",       H::kAlias, "epochs before stopping"},
      {"--mini-batch",      "Marian", "", "batch-size",       H::kAlias, "sentences per batch"},
      {"--mini-batch-words", "Marian", "", "batch-tokens",    H::kRefused,
       "Marian counts target words; heed's --batch-tokens caps padded tokens, sentences × the "
       "longest side (source or target) in the batch"},
      {"--max-length-factor", "Marian", "", "max-length-ratio", H::kAlias,
       "outputs of at most factor × source tokens (heed adds --max-length-offset)"},
      {"--valid-freq",      "Marian", "", "valid-every",      H::kAlias,
       "updates between validations (a count of updates: Marian's suffixes e and t are not read)"},
      {"--save-freq",       "Marian", "", "save-every",       H::kAlias,
       "updates between checkpoints (a count of updates)"},
      {"--disp-freq",       "Marian", "", "log-every",        H::kAlias,
       "updates between log rows (a count of updates)"},
      {"--learn-rate",      "Marian", "", "lr",               H::kAlias, "learning rate"},
      {"--clip-norm",       "Marian", "", "clip",             H::kAlias, "gradient-norm clipping"},
      {"--dim-emb",         "Marian", "", "embed",            H::kAlias, "embedding size"},
      {"--dim-rnn",         "Marian", "", "hidden",           H::kAlias, "RNN state size"},
      {"--enc-depth",       "Marian", "", "encoder-layers",   H::kAlias, "encoder layers"},
      {"--dec-depth",       "Marian", "", "decoder-layers",   H::kAlias, "decoder layers"},
      {"--tied-embeddings", "Marian", "", "tie-embeddings",   H::kAlias,
       "target embeddings tied to the output layer"},
      {"--train-sets",      "Marian", "", "train-src",        H::kRefused,
       "heed-train takes the two files as --train-src FILE --train-tgt FILE"},
      {"--valid-sets",      "Marian", "", "valid-src",        H::kRefused,
       "heed-train takes the two files as --valid-src FILE --valid-tgt FILE"},
      {"--vocabs",          "Marian", "", "src-vocab",        H::kRefused,
       "heed-train takes --src-vocab FILE and --tgt-vocab FILE (or builds both)"},
      {"--devices",         "Marian", "", "threads",          H::kRefused,
       "heed runs on the CPU: --threads N sets how many cores"},
      // OpenNMT (single-dash words, '_' for '-'; its spellings of heed's own names are refused
      // as every single-dash long name is, with "did you mean").
      {"-src",            "OpenNMT", "translate", "input", H::kRefused,
       "heed-translate reads standard input or -i FILE"},
      {"-src",            "OpenNMT", "train", "train-src", H::kRefused,
       "heed-train takes --train-src FILE and --valid-src FILE"},
      {"-tgt",            "OpenNMT", "train", "train-tgt", H::kRefused,
       "heed-train takes --train-tgt FILE and --valid-tgt FILE"},
      {"-tgt",            "OpenNMT", "translate", "input", H::kRefused,
       "heed-translate does not score given targets; heed-align extract forces a decoding "
       "along them"},
      {"-gpu",            "OpenNMT", "", "threads",    H::kRefused,
       "heed runs on the CPU: --threads N sets how many cores"},
      {"-gpu_ranks",      "OpenNMT", "", "threads",    H::kRefused,
       "heed runs on the CPU: --threads N sets how many cores (mpirun for several processes)"},
      {"-save_model",     "OpenNMT", "train", "output", H::kRefused,
       "heed-train writes DIR/model.heed: give the directory with -o DIR"},
      {"-train_steps",    "OpenNMT", "", "max-steps",  H::kAlias,  "updates before stopping"},
      {"-early_stopping", "OpenNMT", "", "patience",   H::kAlias,
       "validations without improvement before stopping"},
  };
  // clang-format on
  return table;
}

std::string spelled_name(const std::string& word) {
  size_t begin = 0;
  while (begin < word.size() && begin < 2 && word[begin] == '-') ++begin;
  std::string name = word.substr(
      begin, word.find('=') == std::string::npos ? std::string::npos : word.find('=') - begin);
  for (char& c : name) c = c == '_' ? '-' : c;
  return name;
}

}  // namespace heed::cli
