#include "common/comparison.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/table.h"
#include "heed/common/error.h"
#include "heed/common/strings.h"

namespace heed::cli {
namespace {

std::string signed_number(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%+.*f", decimals, value);
  return text;
}

// "[-0.43, +2.20]"
std::string bracketed(const eval::Interval& interval, int decimals) {
  return "[" + signed_number(interval.low, decimals) + ", " +
         signed_number(interval.high, decimals) + "]";
}

}  // namespace

NamedSystem parse_system(const std::string& spec, std::vector<std::string>& files,
                         const std::string& option) {
  const size_t equals = spec.find('=');
  const auto bad = [&spec, &option](const std::string& why) {
    return ConfigError(option + " '" + spec + "': " + why + " (expected NAME=RUN[,RUN...])");
  };
  if (equals == std::string::npos) throw bad("no '='");
  NamedSystem system{spec.substr(0, equals), {}, {}};
  if (system.name.empty()) throw bad("no name before '='");
  for (unsigned char c : system.name) {
    if (c < 0x20 || c == 0x7f) throw bad("a control character in the name");
  }
  for (const std::string& file : split(spec.substr(equals + 1), ",")) {
    if (file.empty()) throw bad("an empty file name");
    system.runs.push_back(files.size());
    files.push_back(file);
  }
  return system;
}

std::vector<NamedSystem> parse_systems(const std::vector<std::string>& specs,
                                       std::vector<std::string>& files, const std::string& option) {
  std::vector<NamedSystem> systems;
  for (const auto& spec : specs) {
    NamedSystem system = parse_system(spec, files, option);
    auto same = std::find_if(systems.begin(), systems.end(),
                             [&system](const NamedSystem& s) { return s.name == system.name; });
    if (same == systems.end()) {
      systems.push_back(std::move(system));
    } else {
      same->runs.insert(same->runs.end(), system.runs.begin(), system.runs.end());
    }
  }
  // Two paths are the same run when they are the same string or name the same file.
  const auto same_file = [&files](size_t a, size_t b) {
    if (files[a] == files[b]) return true;
    struct stat x {
    }, y{};
    return ::stat(files[a].c_str(), &x) == 0 && ::stat(files[b].c_str(), &y) == 0 &&
           x.st_dev == y.st_dev && x.st_ino == y.st_ino;
  };
  for (const NamedSystem& system : systems) {
    for (size_t i = 1; i < system.runs.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (!same_file(system.runs[i], system.runs[j])) continue;
        throw ConfigError(option + " " + system.name + ": '" + files[system.runs[i]] +
                          "' is the run '" + files[system.runs[j]] +
                          "' again; give each run once (a run counted twice would shrink the "
                          "spread over runs and the interval)");
      }
    }
  }
  return systems;
}

const std::vector<std::string>& comparison_columns() {
  static const std::vector<std::string> columns = {
      "system",     "metric",     "runs",      "mean",         "sd",
      "difference", "ci95_low",   "ci95_high", "p_value",      "p_holm",
      "ci90_low",   "ci90_high",  "tost_p",    "equivalent",   "run_scores",
      "welch_low",  "welch_high", "welch_p",   "welch_p_holm", "tost_p_holm"};
  return columns;
}

std::vector<std::string> comparison_header(const std::string& margin, bool table) {
  if (!table) return comparison_columns();
  return {"system",
          "metric",
          "runs",
          "mean ± sd",
          "difference [95% CI]",
          "p",
          "p Holm",
          "Welch [95% CI]",
          "Welch p Holm",
          "TOST p",
          "TOST p Holm",
          "equivalent ±" + margin};
}

std::vector<std::string> comparison_row(const std::string& name, const std::string& metric,
                                        const eval::SystemComparison& r, bool baseline,
                                        int decimals, bool table) {
  const auto& e = r.equivalence;
  const auto& w = r.welch;
  if (table) {
    std::string mean = format_number(r.mean, decimals);
    if (std::isfinite(r.sd)) mean += " ± " + format_number(r.sd, decimals);
    std::vector<std::string> row = {name, metric, std::to_string(r.runs), mean};
    if (baseline) {
      row.push_back("baseline");
    } else {
      row.insert(row.end(),
                 {signed_number(r.difference, decimals) + " " + bracketed(r.ci95, decimals),
                  eval::format_p_value(r.p), eval::format_p_value(r.p_holm),
                  w.defined ? bracketed(w.ci95, decimals) : "-",
                  w.defined ? eval::format_p_value(r.welch_p_holm) : "-", eval::format_p_value(e.p),
                  eval::format_p_value(e.p_holm), e.equivalent ? "yes" : "no"});
    }
    return row;
  }
  std::vector<std::string> scores;
  for (double s : r.run_scores) scores.push_back(format_number(s, decimals));
  std::vector<std::string> row = {name, metric, std::to_string(r.runs),
                                  format_number(r.mean, decimals), format_number(r.sd, decimals)};
  if (baseline) {
    row.insert(row.end(), 9, "-");
  } else {
    row.insert(row.end(),
               {signed_number(r.difference, decimals), signed_number(r.ci95.low, decimals),
                signed_number(r.ci95.high, decimals), eval::format_p_value(r.p),
                eval::format_p_value(r.p_holm), signed_number(e.ci90.low, decimals),
                signed_number(e.ci90.high, decimals), eval::format_p_value(e.p),
                e.equivalent ? "yes" : "no"});
  }
  row.push_back(join(scores, ","));
  if (baseline) {
    row.insert(row.end(), 5, "-");
    return row;
  }
  if (w.defined) {
    row.insert(row.end(),
               {signed_number(w.ci95.low, decimals), signed_number(w.ci95.high, decimals),
                eval::format_p_value({w.p, false}), eval::format_p_value(r.welch_p_holm)});
  } else {
    row.insert(row.end(), 4, "-");
  }
  row.push_back(eval::format_p_value(e.p_holm));
  return row;
}

std::vector<std::string> comparison_method(int resamples, std::uint64_t seed,
                                           const std::string& baseline, size_t comparisons,
                                           const std::string& margin) {
  const std::string b = std::to_string(resamples);
  const std::string alpha = format_number(eval::kAlpha, 2);
  return {
      "# hierarchical bootstrap: " + b +
          " resamples, each drawing every system's runs and one shared set of segments "
          "with replacement, the drawn runs' deviation from the system's mean times "
          "sqrt(n/(n-1)) for n runs (Rao & Wu 1988); seed " +
          std::to_string(seed) + "; baseline " + baseline,
      "# p: two-sided, twice the share of resamples whose difference is on the far side of "
      "0; '< x' when none is (x = 1/(" +
          b + "+1)); Holm over the " + std::to_string(comparisons) + " comparisons of each metric",
      "# Welch: a two-sample t-test over the runs' scores alone (the seeds, not the segments), "
      "the 95% interval of the difference of means with Welch-Satterthwaite degrees of "
      "freedom and a two-sided p; '-' with fewer than 2 runs on a side, or when no run of "
      "either differs from its system's mean; Holm over the comparisons of each metric that "
      "have one",
      "# equivalence (TOST, alpha " + alpha + ") within (-" + margin + ", +" + margin +
          "): equivalent when the TOST p, Holm-adjusted over the " + std::to_string(comparisons) +
          " comparisons of each metric, is below " + alpha + "; the 90% interval beside it"};
}

}  // namespace heed::cli
