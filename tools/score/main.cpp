// heed-score: corpus BLEU and chrF as sacreBLEU 2.x computes them, sentence-level scores, and
// paired bootstrap resampling between systems (Koehn 2004).
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/options.h"
#include "common/run.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"
#include "heed/eval/bleu.h"
#include "heed/eval/bootstrap.h"
#include "heed/eval/chrf.h"
#include "heed/io/line_reader.h"
#include "heed/io/line_writer.h"
#include "heed/text/unicode.h"

namespace {

using namespace heed;
namespace po = boost::program_options;

struct ScoreCliConfig {
  std::vector<std::string> references;
  std::vector<std::string> hypotheses;
  std::string output = "-";
  bool bleu = true;
  bool chrf = true;
  eval::BleuOptions bleu_options;
  eval::ChrfOptions chrf_options;
  bool sentence = false;
  int bootstrap = 0;
  int width = 2;
  std::uint64_t seed = 12345;
};

bool parse_options(int argc, char** argv, ScoreCliConfig& cfg) {
  cli::CommandLine cl({"score", "--ref REF --hyp HYP [--hyp HYP2 ...] [options]",
                       "Scores translations against references: corpus BLEU (sacreBLEU 2.x: 13a "
                       "tokenization, exponential smoothing, brevity penalty) and chrF2, "
                       "sentence-level scores, and paired bootstrap resampling between systems. "
                       "'-' reads a file from standard input.",
                       LogLevel::kWarn, ScoreCliConfig().seed});
  std::string metrics = "bleu,chrf", tokenize = "13a";
  cl.group("Scoring").add_options()("ref,r", po::value(&cfg.references)->required(),
                                    "reference file; repeat for several references per segment")(
      "hyp", po::value(&cfg.hypotheses)->required(),
      "hypothesis file; repeat for several systems (the first is the baseline)")(
      "output,o", po::value(&cfg.output)->default_value(cfg.output), "output file ('-' = stdout)")(
      "metrics,m",
      cli::checked(&metrics,
                   [](const std::string& list) {
                     for (const auto& m : split(list, ",")) {
                       cli::check_choice("metrics", m, {"bleu", "chrf"});
                     }
                   }),
      "bleu, chrf or both (comma-separated)")("tokenize",
                                              cli::checked(&tokenize, eval::parse_bleu_tokenizer),
                                              "BLEU tokenization: 13a, intl or none")(
      "lowercase", po::bool_switch(&cfg.bleu_options.lowercase), "lowercase before scoring")(
      "sentence", po::bool_switch(&cfg.sentence),
      "one line per segment: line number, then the metrics (sentence BLEU with effective order)")(
      "bootstrap", cli::number(&cfg.bootstrap, cli::at_least(0)),
      "paired bootstrap resampling with this many resamples (0 = off; 1000 is usual)")(
      "width", cli::number(&cfg.width, cli::between(0, 10)), "decimals printed");
  cl.positional("hyp", -1);
  if (!cl.parse(argc, argv)) return false;
  cfg.bleu = cfg.chrf = false;
  for (const auto& m : split(metrics, ",")) {
    (m == "bleu" ? cfg.bleu : cfg.chrf) = true;
  }
  cfg.bleu_options.tokenizer = eval::parse_bleu_tokenizer(tokenize);
  cfg.chrf_options.lowercase = cfg.bleu_options.lowercase;
  if (cfg.sentence && cfg.hypotheses.size() != 1) {
    throw ConfigError("--sentence scores one --hyp file at a time");
  }
  cfg.seed = cl.common().seed;
  io::check_writable(cfg.output);
  return true;
}

// All lines of a file, checked for UTF-8.
std::vector<std::string> read_lines(const std::string& path) {
  io::LineReader reader(path);
  std::vector<std::string> lines;
  std::string line;
  while (reader.next(line)) {
    if (auto bad = text::find_invalid_utf8(line)) {
      throw DataError(at_line(reader.display_name(), reader.line_number(),
                              "invalid UTF-8 at byte " + std::to_string(*bad + 1)));
    }
    lines.push_back(line);
  }
  return lines;
}

std::string fixed(double value, int width) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", width, value);
  return buffer;
}

eval::SegmentStats bleu_vector(const eval::BleuStats& s) {
  eval::SegmentStats v;
  for (auto c : s.correct) v.push_back(static_cast<double>(c));
  for (auto t : s.total) v.push_back(static_cast<double>(t));
  v.push_back(static_cast<double>(s.hyp_len));
  v.push_back(static_cast<double>(s.ref_len));
  return v;
}

eval::BleuStats bleu_stats(const eval::SegmentStats& v) {
  eval::BleuStats s;
  for (size_t n = 0; n < 4; ++n) {
    s.correct[n] = static_cast<long long>(v[n]);
    s.total[n] = static_cast<long long>(v[4 + n]);
  }
  s.hyp_len = static_cast<long long>(v[8]);
  s.ref_len = static_cast<long long>(v[9]);
  return s;
}

int score_main(int argc, char** argv) {
  ScoreCliConfig cfg;
  if (!parse_options(argc, argv, cfg)) return 0;

  std::vector<std::vector<std::string>> refs;
  for (const auto& path : cfg.references) refs.push_back(read_lines(path));
  std::vector<std::vector<std::string>> hyps;
  for (const auto& path : cfg.hypotheses) {
    hyps.push_back(read_lines(path));
    for (size_t r = 0; r < refs.size(); ++r) {
      if (hyps.back().size() != refs[r].size()) {
        throw DataError("'" + path + "' has " + std::to_string(hyps.back().size()) +
                        " lines but the reference '" + cfg.references[r] + "' has " +
                        std::to_string(refs[r].size()));
      }
    }
  }

  // Segment statistics per system; every score below is computed from them.
  const size_t segments = refs[0].size();
  if (segments == 0) throw DataError("'" + cfg.references[0] + "' is empty: nothing to score");
  std::vector<std::vector<eval::SegmentStats>> bleu(hyps.size()), chrf(hyps.size());
  std::vector<std::string_view> seg_refs(refs.size());
  for (size_t s = 0; s < hyps.size(); ++s) {
    for (size_t i = 0; i < segments; ++i) {
      for (size_t r = 0; r < refs.size(); ++r) seg_refs[r] = refs[r][i];
      if (cfg.bleu)
        bleu[s].push_back(bleu_vector(eval::segment_stats(hyps[s][i], seg_refs, cfg.bleu_options)));
      if (cfg.chrf)
        chrf[s].push_back(eval::chrf_segment_stats(hyps[s][i], seg_refs, cfg.chrf_options));
    }
  }
  const auto bleu_score = [&cfg](const eval::SegmentStats& v) {
    return eval::bleu_from_stats(bleu_stats(v), cfg.bleu_options).score;
  };
  const auto chrf_score = [&cfg](const eval::SegmentStats& v) {
    return eval::chrf_from_stats(v, cfg.chrf_options);
  };
  const int nrefs = static_cast<int>(refs.size());
  const std::string bleu_name = "BLEU|" + eval::bleu_signature(cfg.bleu_options, nrefs);
  const std::string chrf_name = "chrF2|" + eval::chrf_signature(cfg.chrf_options, nrefs);

  io::LineWriter out(cfg.output);
  if (cfg.sentence) {
    out.write_line(std::string("line") + (cfg.bleu ? "\tBLEU" : "") + (cfg.chrf ? "\tchrF2" : ""));
    eval::BleuOptions sentence_options = cfg.bleu_options;
    sentence_options.effective_order = true;
    for (size_t i = 0; i < segments; ++i) {
      std::string row = std::to_string(i + 1);
      if (cfg.bleu)
        row += "\t" + fixed(eval::bleu_from_stats(bleu_stats(bleu[0][i]), sentence_options).score,
                            cfg.width);
      if (cfg.chrf) row += "\t" + fixed(chrf_score(chrf[0][i]), cfg.width);
      out.write_line(row);
    }
  } else if (cfg.bootstrap > 0) {
    out.write_line("system\tmetric\tscore\tmean\tci95\tp_value");
    auto report = [&](const std::vector<std::vector<eval::SegmentStats>>& stats,
                      const eval::CorpusScore& score, const std::string& metric) {
      auto results = eval::paired_bootstrap(stats, score, cfg.bootstrap, cfg.seed);
      for (size_t s = 0; s < results.size(); ++s) {
        out.write_line(cfg.hypotheses[s] + "\t" + metric + "\t" +
                       fixed(results[s].score, cfg.width) + "\t" +
                       fixed(results[s].mean, cfg.width) + "\t" + fixed(results[s].ci, cfg.width) +
                       "\t" + (s == 0 ? std::string("-") : fixed(results[s].p_value, 4)));
      }
    };
    if (cfg.bleu) report(bleu, bleu_score, "BLEU");
    if (cfg.chrf) report(chrf, chrf_score, "chrF2");
    out.write_line("# BLEU signature: " + eval::bleu_signature(cfg.bleu_options, nrefs));
    out.write_line("# chrF2 signature: " + eval::chrf_signature(cfg.chrf_options, nrefs));
    out.write_line("# paired bootstrap: " + std::to_string(cfg.bootstrap) + " resamples, seed " +
                   std::to_string(cfg.seed) + ", baseline " + cfg.hypotheses[0]);
  } else {
    for (size_t s = 0; s < hyps.size(); ++s) {
      const std::string prefix = hyps.size() > 1 ? cfg.hypotheses[s] + "\t" : "";
      if (cfg.bleu) {
        eval::BleuStats total;
        for (const auto& v : bleu[s]) total += bleu_stats(v);
        eval::BleuScore b = eval::bleu_from_stats(total, cfg.bleu_options);
        std::string details = b.format();  // "BLEU = 48.53 82.4/..."
        details = details.substr(details.find(' ', 7) + 1);
        out.write_line(prefix + bleu_name + " = " + fixed(b.score, cfg.width) + " " + details);
      }
      if (cfg.chrf) {
        eval::SegmentStats total(chrf[s][0].size(), 0.0);
        for (const auto& v : chrf[s]) {
          for (size_t k = 0; k < total.size(); ++k) total[k] += v[k];
        }
        out.write_line(prefix + chrf_name + " = " + fixed(chrf_score(total), cfg.width));
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
