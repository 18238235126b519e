// heed-align ibm2: the fast_align model (lib/heed/align/ibm2.h) on a parallel text, written as
// one line of Pharaoh links per sentence pair.
#include "heed/align/ibm2.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "align/subcommand.h"
#include "common/progress.h"
#include "common/shared_options.h"
#include "heed/common/error.h"
#include "heed/common/timer.h"
#include "heed/io/line_writer.h"
#include "heed/io/parallel_corpus.h"
#include "heed/io/safetensors.h"
#include "heed/text/input_check.h"
#include "heed/train/signals.h"

namespace {

using namespace heed;
class Ibm2Command : public align_tool::Subcommand {
 public:
  std::string name() const override { return "ibm2"; }
  std::string synopsis() const override {
    return "ibm2 [options] [SRC TGT | -i 'SRC ||| TGT' lines] [-o OUT]";
  }
  std::string description() const override {
    return "Aligns a tokenized parallel text with the reparameterised IBM Model 2 of Dyer, "
           "Chahuneau & Smith (2013), the model of fast_align, trained by EM on the text "
           "itself: one line of zero-based Pharaoh links 'i-j' (source word i, target word j) "
           "per sentence pair. The defaults are fast_align's; its recommended use "
           "'fast_align -d -o -v' is '--favor-diagonal --optimize-tension "
           "--variational-bayes'. A pair with an empty side gets an empty line.";
  }

  void add_options(cli::CommandLine& cl) override {
    // clang-format off
    cl.group("Input and output")
        ("source",            cli::text(&source_), "source file (tokenized, one sentence a line)")
        ("target",            cli::text(&target_), "target file, line-parallel to the source")
        ("input,i",           cli::text_with_default(&input_),
                              "'source ||| target' (or 'source<TAB>target') lines, when no SRC TGT "
                              "are given ('-' = stdin)")
        ("output,o",          cli::text_with_default(&output_),
                              "output file ('-' = stdout); a file keeps FILE.checkpoint after "
                              "every EM update, which Ctrl-C leaves for the next call")
        ("lexical-table",     cli::text(&lexical_table_),
                              "also write the learned t(to | from) as "
                              "'from<TAB>to<TAB>probability' lines, from = source word (target "
                              "word with --reverse), sorted by from, then best first "
                              "(docs/formats.md): the table heed-translate --shortlist reads")
        ("lexical-floor",     cli::number(&lexical_floor_, cli::from_below(0, 1)),
                              "leave entries below this probability out of --lexical-table");
    cli::add_on_invalid(cl.group("Input and output"), &on_invalid_, /*allow_skip=*/false);
    cl.group("Model")
        ("reverse,r",         cli::flag(&options_.reverse),
                              "model p(source | target); the links are still written "
                              "source-target")
        ("favor-diagonal,d",  cli::flag(&options_.favor_diagonal),
                              "prefer links near the diagonal (otherwise positions are uniform, as "
                              "in IBM Model 1)")
        ("diagonal-tension",  cli::number(&options_.diagonal_tension, cli::above(0)),
                              fmt::format("starting tension of the diagonal prior (with "
                                          "--favor-diagonal; in [{}, {}] with --optimize-tension, "
                                          "the range the fitted tension is kept in)",
                                          align::kMinTension, align::kMaxTension))
        ("optimize-tension",  cli::flag(&options_.optimize_tension),
                              "fit the tension between EM iterations (with --favor-diagonal)")
        ("tension-gradient",  cli::choice(&tension_gradient_, {"exact", "fast-align"}),
                              "exact (the gradient of the expected log-likelihood) or fast-align "
                              "(fast_align's formulas, to reproduce its alignments); with "
                              "--optimize-tension")
        ("p0",                cli::number(&options_.null_probability, cli::from_below(0, 1)),
                              "probability of aligning to the null word (with --favor-diagonal)")
        ("no-null-word",      cli::flag(&no_null_word_),
                              "every target word is aligned to a source word")
        ("variational-bayes", cli::flag(&options_.variational_bayes),
                              "symmetric Dirichlet prior on each word's translations (mean-field "
                              "EM)")
        ("alpha",             cli::number(&options_.alpha, cli::above(0)),
                              "concentration of that prior (with --variational-bayes)")
        ("iterations",        cli::number(&options_.iterations, cli::at_least(1)),
                              "passes over the corpus: EM updates, then the last one aligns");
    // clang-format on
    cl.positional("source", 1);
    cl.positional("target", 1);
  }

  int run(const cli::CommandLine& cl) override {
    check_options(cl);
    io::check_writable(output_);
    if (!lexical_table_.empty()) io::check_writable(lexical_table_);
    const text::OnInvalid policy = on_invalid_;

    Timer timer;
    align::WordCorpus corpus;
    {
      auto reader = source_.empty() ? std::make_unique<io::ParallelReader>(input_)
                                    : std::make_unique<io::ParallelReader>(source_, target_);
      std::string source, target, source_storage, target_storage;
      while (reader->next(source, target)) {
        const long long line = reader->line_number();
        corpus.add(text::checked_line(source, policy, reader->source_name(), line, source_storage),
                   text::checked_line(target, policy, reader->target_name(), line, target_storage));
      }
    }
    spdlog::info("[ibm2] pairs={} source_words={} target_words={} seconds={:.2f}", corpus.size(),
                 corpus.source_vocabulary_size(), corpus.target_vocabulary_size(), timer.seconds());

    const auto log_iteration = [&timer](int iteration, const align::Ibm2Iteration& s) {
      const double per_word = s.target_tokens > 0 ? -s.log_likelihood / s.target_tokens : 0;
      spdlog::info(
          "[ibm2] iteration={} log_likelihood={:.6g} perplexity={:.4g} null_posterior={:.4f} "
          "tension={:.4f} seconds={:.2f}",
          iteration, s.log_likelihood, std::exp(per_word), s.null_posterior, s.tension,
          timer.seconds());
    };
    align::Ibm2 model(corpus, options_, cl.threads());
    // With -o FILE the model keeps FILE.checkpoint after every EM update: Ctrl-C (or SIGTERM)
    // drops the update under way and exits 130 (143), and the next call with the same corpus,
    // options and FILE continues after the last whole update, to the same links.
    const std::string checkpoint = io::side_file_path(output_, ".checkpoint");
    const std::string key = checkpoint_key(corpus);
    if (!checkpoint.empty()) restore_checkpoint(model, checkpoint, key);
    train::ignore_broken_pipes();
    const train::GracefulStop graceful;
    // On a terminal only: EM updates done of those to make, and the ETA.
    cli::Progress bar;
    const int updates = std::max(options_.iterations - 1, 1);
    const auto show = [&bar, updates](int done) {
      bar.update(double(done) / updates,
                 std::to_string(done) + " of " + std::to_string(updates) + " EM updates");
    };
    show(model.updates_done());
    const bool finished = model.train(
        [&](int iteration, const align::Ibm2Iteration& stats) {
          log_iteration(iteration, stats);
          show(iteration);
          if (!checkpoint.empty() && iteration < options_.iterations - 1) {
            save_checkpoint(model, checkpoint, key);
          }
        },
        [] { return train::stop_signal() != 0; });
    bar.clear();
    if (!finished) {
      if (checkpoint.empty()) {
        spdlog::warn("[ibm2] no checkpoint kept: write the links with -o FILE to keep one");
      } else if (model.updates_done() > 0) {
        spdlog::warn("[ibm2] stopped; {} keeps {} EM update(s): the same call continues",
                     checkpoint, model.updates_done());
      }
      throw Interrupted(train::stop_signal());
    }
    const auto alignments = model.align();

    io::LineWriter out(output_);
    for (const align::Alignment& links : alignments) out.write_line(align::to_pharaoh(links));
    // A stop asked for while aligning or writing: nothing is committed (the checkpoint stays).
    if (const int signal = train::stop_signal()) throw Interrupted(signal);
    if (!lexical_table_.empty()) write_lexical_table(model);
    out.commit();
    if (!checkpoint.empty()) std::remove(checkpoint.c_str());  // the links hold the run now
    spdlog::info("[ibm2] aligned pairs={} seconds={:.2f}", alignments.size(), timer.seconds());
    return 0;
  }

 private:
  // What a checkpoint must match: the corpus and every option that changes the model.
  std::string checkpoint_key(const align::WordCorpus& corpus) const {
    char text[256];
    std::snprintf(text, sizeof text,
                  "ibm2 corpus=%s pairs=%zu iterations=%d reverse=%d diagonal=%d tension=%.17g "
                  "optimize=%d gradient=%s p0=%.17g null=%d vb=%d alpha=%.17g",
                  corpus.fingerprint().c_str(), corpus.size(), options_.iterations,
                  int(options_.reverse), int(options_.favor_diagonal), options_.diagonal_tension,
                  int(options_.optimize_tension), tension_gradient_.c_str(),
                  options_.null_probability, int(options_.null_word),
                  int(options_.variational_bayes), options_.alpha);
    return text;
  }

  static void save_checkpoint(const align::Ibm2& model, const std::string& path,
                              const std::string& key) {
    const align::Ibm2State state = model.state();
    io::SafeTensors out;
    out.add_f64("t", {int64_t(state.t.size())}, state.t.data());
    out.set_metadata("key", key);
    out.set_metadata("updates", std::to_string(state.updates));
    char tension[40];
    std::snprintf(tension, sizeof tension, "%.17g", state.tension);
    out.set_metadata("tension", tension);
    out.save(path);
  }

  // Continues from path when it holds a checkpoint of this run; another run's is replaced.
  static void restore_checkpoint(align::Ibm2& model, const std::string& path,
                                 const std::string& key) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) return;
    const io::SafeTensors in = io::SafeTensors::load(path);
    if (in.metadata("key") != key) {
      spdlog::warn("{}: a checkpoint of another run ({}); this run starts afresh and replaces it",
                   path, in.metadata("key"));
      return;
    }
    align::Ibm2State state;
    state.t = in.get("t").as_f64();
    const double updates = in.metadata_number("updates");
    if (!(updates >= 0 && updates <= 1e9)) {
      throw FormatError(path + ": metadata 'updates' is out of range");
    }
    state.updates = static_cast<int>(updates);
    state.tension = in.metadata_number("tension");
    try {
      model.restore(std::move(state));
    } catch (const FormatError& e) {
      throw FormatError(path + ": " + e.what());
    }
    spdlog::info("{}: continuing after EM update {}", path, model.updates_done());
  }

  void write_lexical_table(const align::Ibm2& model) const {
    io::LineWriter table(lexical_table_);
    char probability[32];
    for (const align::LexicalEntry& entry : model.lexical_table(lexical_floor_)) {
      std::snprintf(probability, sizeof probability, "%.6g", entry.probability);
      table.write_line(entry.from + '\t' + entry.to + '\t' + probability);
    }
    table.commit();
  }

  // An option that only acts with another one is refused without it when it is set to
  // anything but its default (rather than ignored); the defaults that --print-config writes
  // replay.
  void check_options(const cli::CommandLine& cl) {
    options_.null_word = !no_null_word_;
    if (cl.given("source") != cl.given("target")) {
      throw ConfigError("give both SRC and TGT files, or 'SRC ||| TGT' lines with -i");
    }
    if (cl.given("source") && input_ != "-") {
      throw ConfigError("--input reads 'SRC ||| TGT' lines; it does not go with SRC TGT files");
    }
    const align::Ibm2Options defaults;
    const auto refuse_without = [](bool set, const char* option, const char* needed) {
      if (set) throw ConfigError(std::string("--") + option + " needs --" + needed);
    };
    if (!options_.favor_diagonal) {
      refuse_without(options_.diagonal_tension != defaults.diagonal_tension, "diagonal-tension",
                     "favor-diagonal");
      refuse_without(options_.optimize_tension, "optimize-tension", "favor-diagonal");
      refuse_without(options_.null_probability != defaults.null_probability, "p0",
                     "favor-diagonal");
    }
    if (tension_gradient_ == "fast-align") {
      options_.tension_gradient = align::TensionGradient::fast_align;
    }
    if (!options_.optimize_tension) {
      refuse_without(options_.tension_gradient != defaults.tension_gradient, "tension-gradient",
                     "optimize-tension");
    }
    if (!options_.variational_bayes) {
      refuse_without(options_.alpha != defaults.alpha, "alpha", "variational-bayes");
    }
    refuse_without(lexical_table_.empty() && lexical_floor_ != kDefaultLexicalFloor,
                   "lexical-floor", "lexical-table");
    if (no_null_word_ && options_.null_probability != defaults.null_probability) {
      throw ConfigError("--p0 does not go with --no-null-word");
    }
    options_.validate();
  }

  std::string source_, target_;
  std::string input_ = "-";
  std::string output_ = "-";
  text::OnInvalid on_invalid_ = text::OnInvalid::kError;
  std::string tension_gradient_ = "exact";
  bool no_null_word_ = false;
  static constexpr double kDefaultLexicalFloor = 1e-4;
  std::string lexical_table_;
  double lexical_floor_ = kDefaultLexicalFloor;
  align::Ibm2Options options_;
};

}  // namespace

namespace heed::align_tool {
std::unique_ptr<Subcommand> make_ibm2() {
  return std::make_unique<Ibm2Command>();
}
}  // namespace heed::align_tool
