// heed-score: corpus BLEU and chrF as sacreBLEU 2.x computes them, sentence-level scores, paired
// bootstrap resampling between systems (Koehn 2004), and the comparison of systems trained several
// times (--system: a hierarchical bootstrap over runs and segments, Clark et al. 2011).
#include <spdlog/spdlog.h>

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "common/progress.h"
#include "common/run.h"
#include "common/table.h"
#include "heed/common/error.h"
#include "heed/common/memory.h"
#include "heed/common/parallel.h"
#include "heed/common/strings.h"
#include "heed/eval/bleu.h"
#include "heed/eval/bootstrap.h"
#include "heed/eval/chrf.h"
#include "heed/eval/multi_run.h"
#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"
#include "heed/text/input_check.h"
#include "score/compare.h"
#include "score/options.h"

namespace {

using namespace heed;
using score_tool::ScoreCliConfig;

// Inputs from this many segments up show a progress line on a terminal.
constexpr size_t kProgressSegments = 10000;

// A reference or hypothesis file: its lines as text (per --on-invalid), up to the first line
// that is not text when that is an error.
struct Segments {
  std::vector<std::string> lines;
  long long line_count = 0;           // every line of the file
  std::optional<DataError> bad_line;  // the first line that is not text (--on-invalid error)
};

Segments read_segments(const std::string& path, text::OnInvalid on_invalid) {
  io::LineReader reader(path);
  Segments file;
  std::string line, repaired;
  while (reader.next(line)) {
    if (file.bad_line) continue;  // still counted, for the line-count check
    try {
      file.lines.emplace_back(text::checked_line(line, on_invalid, reader.display_name(),
                                                 reader.line_number(), repaired));
    } catch (const DataError& e) {
      file.bad_line = e;
    }
  }
  file.line_count = reader.line_number();
  return file;
}

// --system: what the comparisons of every metric (run at once, a thread each) and the statistics
// of every run hold, refused (64) before any run is read when that cannot fit in memory — it
// grows with the systems times --bootstrap.
void check_comparison_fits(const ScoreCliConfig& cfg, size_t segments) {
  std::vector<size_t> runs;
  size_t files = 0, run_count = 0;
  for (const auto& system : cfg.systems) {
    runs.push_back(system.runs.size());
    run_count += system.runs.size();
    files += system.runs.size() + system.minus.size();
  }
  // With --minus a run's statistics are its own and its --minus run's, side by side.
  const size_t halves = cfg.systems[0].minus.empty() ? 1 : 2;
  const eval::MultiRunOptions options{cfg.bootstrap, cfg.seed, cfg.equivalence_margin, cfg.threads};
  double bytes = 0;
  // Each segment's statistics: the numbers and a vector's own bytes.
  const auto metric = [&](size_t dims) {
    bytes += eval::compare_runs_bytes(runs, segments, halves * dims, options) +
             double(files) * double(segments) * (8.0 * double(dims) + 48.0);
    // --minus: each run's statistics joined to its --minus run's, a copy of both.
    if (halves == 2) bytes += double(run_count) * double(segments) * (16.0 * double(dims) + 48.0);
  };
  if (cfg.bleu) metric(eval::to_vector(eval::BleuStats{}).size());
  if (cfg.chrf) metric(3 * size_t(cfg.chrf_options.char_order + cfg.chrf_options.word_order));
  check_fits_in_memory(bytes,
                       std::to_string(cfg.systems.size()) + " --system and --bootstrap " +
                           std::to_string(cfg.bootstrap) + " over " + std::to_string(segments) +
                           " segments: the comparison",
                       "compare fewer systems at once, or lower --bootstrap");
}

// --minus: the score of the first half of a run's summed statistics (its own) minus that of the
// second (its --minus run's, summed over the same segments).
eval::CorpusScore gain_score(eval::CorpusScore score) {
  return [score = std::move(score)](const eval::SegmentStats& both) {
    const auto half = both.begin() + std::ptrdiff_t(both.size() / 2);
    return score(eval::SegmentStats(both.begin(), half)) -
           score(eval::SegmentStats(half, both.end()));
  };
}

// One metric's corpus score as sacreBLEU 2 reports it: its line of text, or its JSON object.
struct Score {
  std::string name;  // "BLEU", "chrF2++"
  double score = 0;
  std::string signature;  // "nrefs:1|case:mixed|..."
  std::string verbose;    // BLEU's precisions and brevity penalty; empty for chrF
  std::optional<eval::Confidence> confidence;

  std::string confidence_text(int width) const {
    return "\u03bc = " + cli::format_number(confidence->mean, width) + " \u00b1 " +
           cli::format_number(confidence->ci, width);
  }
  // "BLEU|nrefs:1|... = 29.90 (μ = 28.51 ± 15.75) 76.2/41.2/..."
  std::string text(int width) const {
    std::string line = name + "|" + signature + " = " + cli::format_number(score, width);
    if (confidence) line += " (" + confidence_text(width) + ")";
    return verbose.empty() ? line : line + " " + verbose;
  }
  // sacreBLEU's json.dumps(..., indent=1): the numbers rounded to width, as Python prints them.
  std::string json(int width) const {
    const auto number = [width](double value) {
      std::string text = cli::format_number(value, width);
      if (text.find('.') == std::string::npos) return text + ".0";
      text.erase(text.find_last_not_of('0') + 1);
      return text.back() == '.' ? text + "0" : text;
    };
    std::vector<std::pair<std::string, std::string>> fields = {
        {"name", quoted(name)}, {"score", number(score)}, {"signature", quoted(signature)}};
    if (confidence) {
      fields.push_back({"confidence_mean", number(confidence->mean)});
      fields.push_back({"confidence_var", number(confidence->ci)});
      fields.push_back({"confidence", quoted(confidence_text(width))});
    }
    if (!verbose.empty()) fields.push_back({"verbose_score", quoted(verbose)});
    for (const std::string& part : split(signature, "|")) {
      const size_t colon = part.find(':');
      fields.push_back({part.substr(0, colon), quoted(part.substr(colon + 1))});
    }
    std::string text = "{\n";
    for (size_t i = 0; i < fields.size(); ++i) {
      text += " " + quoted(fields[i].first) + ": " + fields[i].second +
              (i + 1 < fields.size() ? ",\n" : "\n");
    }
    return text + "}";
  }
  static std::string quoted(const std::string& text) {
    std::string q = "\"";
    for (char c : text) {
      if (c == '"' || c == '\\') q += '\\';
      q += c;
    }
    return q + "\"";
  }
};

// The corpus scores of one system's segment statistics, BLEU then chrF (sacreBLEU's order);
// with --confidence, each with its bootstrap interval ("bs:N|seed:S|" in its signature).
std::vector<Score> corpus_scores(const ScoreCliConfig& cfg,
                                 const std::vector<eval::SegmentStats>& bleu,
                                 const std::vector<eval::SegmentStats>& chrf, int nrefs) {
  const auto with_resampling = [&cfg](std::string signature) {
    if (!cfg.confidence) return signature;
    return signature.insert(signature.find('|') + 1, "bs:" + std::to_string(cfg.bootstrap) +
                                                         "|seed:" + std::to_string(cfg.seed) + "|");
  };
  const auto sum = [](const std::vector<eval::SegmentStats>& segments) {
    eval::SegmentStats total(segments[0].size(), 0.0);
    for (const auto& v : segments) {
      for (size_t k = 0; k < total.size(); ++k) total[k] += v[k];
    }
    return total;
  };
  std::vector<Score> scores;
  if (cfg.bleu) {
    const auto score = [&cfg](const eval::SegmentStats& v) {
      return eval::bleu_from_stats(eval::bleu_stats_from_vector(v), cfg.bleu_options).score;
    };
    const eval::BleuScore b =
        eval::bleu_from_stats(eval::bleu_stats_from_vector(sum(bleu)), cfg.bleu_options);
    std::string details = b.format();  // "BLEU = 48.53 82.4/..."
    details = details.substr(details.find(' ', 7) + 1);
    Score& s = scores.emplace_back(
        Score{"BLEU", b.score, with_resampling(eval::bleu_signature(cfg.bleu_options, nrefs)),
              details, std::nullopt});
    if (cfg.confidence) s.confidence = eval::confidence(bleu, score, cfg.bootstrap, cfg.seed);
  }
  if (cfg.chrf) {
    const auto score = [&cfg](const eval::SegmentStats& v) {
      return eval::chrf_from_stats(v, cfg.chrf_options);
    };
    Score& s = scores.emplace_back(
        Score{eval::chrf_name(cfg.chrf_options), score(sum(chrf)),
              with_resampling(eval::chrf_signature(cfg.chrf_options, nrefs)), "", std::nullopt});
    if (cfg.confidence) s.confidence = eval::confidence(chrf, score, cfg.bootstrap, cfg.seed);
  }
  return scores;
}

// One system's scores as sacreBLEU 2 prints them: lines of text, or JSON (an object, a list of
// them for several metrics).
void write_scores(io::LineWriter& out, const ScoreCliConfig& cfg,
                  const std::vector<eval::SegmentStats>& bleu,
                  const std::vector<eval::SegmentStats>& chrf, int nrefs) {
  const std::vector<Score> scores = corpus_scores(cfg, bleu, chrf, nrefs);
  if (!cfg.json) {
    for (const Score& s : scores) out.write_line(s.text(cfg.width));
    return;
  }
  if (scores.size() == 1) {
    out.write_line(scores[0].json(cfg.width));
    return;
  }
  std::string list = "[\n";
  for (size_t i = 0; i < scores.size(); ++i) {
    list += scores[i].json(cfg.width) + (i + 1 < scores.size() ? ",\n" : "\n");
  }
  out.write_line(list + "]");
}

int score_main(int argc, char** argv) {
  ScoreCliConfig cfg;
  if (!score_tool::parse_options(argc, argv, cfg)) return 0;

  std::vector<Segments> refs;
  for (const auto& path : cfg.references) refs.push_back(read_segments(path, cfg.on_invalid));
  if (!cfg.systems.empty()) check_comparison_fits(cfg, size_t(refs[0].line_count));
  std::vector<Segments> hyps;
  for (const auto& path : cfg.hypotheses) {
    hyps.push_back(read_segments(path, cfg.on_invalid));
    for (size_t r = 0; r < refs.size(); ++r) {
      if (hyps.back().line_count != refs[r].line_count) {
        throw DataError("'" + path + "' has " + std::to_string(hyps.back().line_count) +
                        " lines but the reference '" + cfg.references[r] + "' has " +
                        std::to_string(refs[r].line_count));
      }
    }
  }

  // The earliest line that is not text ends the run. Corpus scores need every segment, so
  // nothing is written; --sentence first writes the rows of the segments before it.
  size_t segments = static_cast<size_t>(refs[0].line_count);
  const Segments* bad = nullptr;
  for (const auto* files : {&refs, &hyps}) {
    for (const Segments& file : *files) {
      if (file.bad_line && file.lines.size() < segments) {
        segments = file.lines.size();
        bad = &file;
      }
    }
  }
  if (bad && (!cfg.sentence || segments == 0)) throw *bad->bad_line;
  if (segments == 0) throw DataError("'" + cfg.references[0] + "' is empty: nothing to score");

  // Segment statistics per system; every score below is computed from them. Each segment's
  // references are prepared once for all the systems, and the segments are shared out among
  // --threads threads: every statistic is one segment's own, so any thread count gives the same.
  std::vector<std::vector<eval::SegmentStats>> bleu(hyps.size()), chrf(hyps.size());
  for (size_t s = 0; s < hyps.size(); ++s) {
    if (cfg.bleu) bleu[s].resize(segments);
    if (cfg.chrf) chrf[s].resize(segments);
  }
  // On a terminal, for large inputs: the segments done (the progress line is drawn by one
  // worker; the others only count).
  cli::Progress bar(segments >= kProgressSegments);
  std::atomic<size_t> done{0};
  parallel_for_chunks(segments, 64, cfg.threads, [&](size_t begin, size_t end, int worker) {
    std::vector<std::string_view> seg_refs(refs.size());
    for (size_t i = begin; i < end; ++i) {
      for (size_t r = 0; r < refs.size(); ++r) seg_refs[r] = refs[r].lines[i];
      if (cfg.bleu) {
        const eval::BleuReferences prepared = eval::bleu_references(seg_refs, cfg.bleu_options);
        for (size_t s = 0; s < hyps.size(); ++s) {
          bleu[s][i] =
              eval::to_vector(eval::segment_stats(hyps[s].lines[i], prepared, cfg.bleu_options));
        }
      }
      if (cfg.chrf) {
        const eval::ChrfReferences prepared = eval::chrf_references(seg_refs, cfg.chrf_options);
        for (size_t s = 0; s < hyps.size(); ++s) {
          chrf[s][i] = eval::chrf_segment_stats(hyps[s].lines[i], prepared, cfg.chrf_options);
        }
      }
    }
    const size_t now_done = done += end - begin;
    if (worker == 0) {
      bar.update_count(static_cast<long long>(now_done), double(now_done) / double(segments),
                       "segments");
    }
  });
  bar.clear();
  const auto bleu_score = [&cfg](const eval::SegmentStats& v) {
    return eval::bleu_from_stats(eval::bleu_stats_from_vector(v), cfg.bleu_options).score;
  };
  const auto chrf_score = [&cfg](const eval::SegmentStats& v) {
    return eval::chrf_from_stats(v, cfg.chrf_options);
  };
  const int nrefs = static_cast<int>(refs.size());
  const std::string bleu_name = "BLEU|" + eval::bleu_signature(cfg.bleu_options, nrefs);
  const std::string chrf_metric = eval::chrf_name(cfg.chrf_options);

  io::LineWriter out(cfg.output);
  if (cfg.sentence) {
    out.write_line(std::string("line") + (cfg.bleu ? "\tBLEU" : "") +
                   (cfg.chrf ? "\t" + chrf_metric : ""));
    eval::BleuOptions sentence_options = cfg.bleu_options;
    sentence_options.effective_order = true;
    for (size_t i = 0; i < segments; ++i) {
      std::string row = std::to_string(i + 1);
      if (cfg.bleu) {
        const eval::BleuStats stats = eval::bleu_stats_from_vector(bleu[0][i]);
        row += "\t" +
               cli::format_number(eval::bleu_from_stats(stats, sentence_options).score, cfg.width);
      }
      if (cfg.chrf) row += "\t" + cli::format_number(chrf_score(chrf[0][i]), cfg.width);
      out.write_line(row);
    }
    if (bad) throw DataError(bad->bad_line->what() + out.keep_partial(long(segments)));
  } else if (!cfg.systems.empty()) {
    for (const auto& system : cfg.systems) {
      if (system.runs.size() == 1) {
        spdlog::warn("--system {}: one run, so its comparison covers the segments, not seeds",
                     system.name);
      }
    }
    if (cfg.systems.size() == 1) {
      spdlog::warn(
          "--system {}: the only system, so nothing is compared (its row has no "
          "difference, p or interval): give the others with --system, the baseline "
          "first",
          cfg.systems[0].name);
    }
    const eval::MultiRunOptions options{cfg.bootstrap, cfg.seed, cfg.equivalence_margin,
                                        cfg.threads};
    struct Metric {
      const std::vector<std::vector<eval::SegmentStats>>* stats;
      eval::CorpusScore score;
      std::string name;
    };
    std::vector<Metric> metrics;
    if (cfg.bleu) metrics.push_back({&bleu, bleu_score, "BLEU"});
    if (cfg.chrf) metrics.push_back({&chrf, chrf_score, chrf_metric});
    // One thread a metric: each draws its own resamples from the seed, as it would alone.
    std::vector<score_tool::MetricComparison> comparisons(metrics.size());
    parallel_for(metrics.size(), cfg.threads, [&](size_t m) {
      const auto& stats = *metrics[m].stats;
      std::vector<eval::SystemRuns> systems;
      for (const auto& system : cfg.systems) {
        eval::SystemRuns& runs = systems.emplace_back();
        for (size_t r = 0; r < system.runs.size(); ++r) {
          runs.push_back(stats[system.runs[r]]);
          if (system.minus.empty()) continue;
          // --minus: each segment's statistics and its --minus run's on the same segment, so
          // that every resample scores both on the same draw (gain_score below).
          const auto& minus = stats[system.minus[r]];
          for (size_t i = 0; i < segments; ++i) {
            runs.back()[i].insert(runs.back()[i].end(), minus[i].begin(), minus[i].end());
          }
        }
      }
      eval::CorpusScore score = metrics[m].score;
      if (!cfg.systems[0].minus.empty()) score = gain_score(score);
      comparisons[m] = {metrics[m].name, eval::compare_runs(systems, score, options)};
    });
    for (const auto& line : score_tool::comparison_report(cfg, comparisons, nrefs)) {
      out.write_line(line);
    }
  } else if (cfg.confidence || cfg.json) {
    write_scores(out, cfg, bleu[0], chrf[0], nrefs);
  } else if (cfg.bootstrap > 0) {
    out.write_line("system\tmetric\tscore\tmean\tci95\tp_value");
    auto report = [&](const std::vector<std::vector<eval::SegmentStats>>& stats,
                      const eval::CorpusScore& score, const std::string& metric) {
      auto results = eval::paired_bootstrap(stats, score, cfg.bootstrap, cfg.seed);
      for (size_t s = 0; s < results.size(); ++s) {
        out.write_line(cfg.hypotheses[s] + "\t" + metric + "\t" +
                       cli::format_number(results[s].score, cfg.width) + "\t" +
                       cli::format_number(results[s].mean, cfg.width) + "\t" +
                       cli::format_number(results[s].ci, cfg.width) + "\t" +
                       (s == 0 ? std::string("-") : cli::format_number(results[s].p_value, 4)));
      }
    };
    if (cfg.bleu) report(bleu, bleu_score, "BLEU");
    if (cfg.chrf) report(chrf, chrf_score, chrf_metric);
    out.write_line("# BLEU signature: " + eval::bleu_signature(cfg.bleu_options, nrefs));
    out.write_line("# " + chrf_metric +
                   " signature: " + eval::chrf_signature(cfg.chrf_options, nrefs));
    out.write_line("# paired bootstrap: " + std::to_string(cfg.bootstrap) + " resamples, seed " +
                   std::to_string(cfg.seed) + ", baseline " + cfg.hypotheses[0]);
  } else {
    for (size_t s = 0; s < hyps.size(); ++s) {
      const std::string prefix = hyps.size() > 1 ? cfg.hypotheses[s] + "\t" : "";
      for (const Score& score : corpus_scores(cfg, bleu[s], chrf[s], nrefs)) {
        out.write_line(prefix + score.text(cfg.width));
      }
    }
  }
  out.commit();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return heed::cli::run_tool(argc, argv, "score", score_main);
}
