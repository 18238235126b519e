#include "heed/train/training_state.h"

#include <cctype>
#include <cstdlib>
#include <map>
#include <sstream>

#include "heed/common/error.h"

namespace heed::train {
namespace {

// 2: named fields. 1 (never written as such): ten positional numbers, then the RNG.
constexpr int kFormat = 2;

// strtod reads what operator<< wrote, "inf" included.
double number(const std::string& value, const std::string& what, const std::string& source) {
  char* end = nullptr;
  const double d = std::strtod(value.c_str(), &end);
  if (value.empty() || end == value.c_str() || *end) {
    throw FormatError(source + ": malformed trainer state (" + what + " '" + value + "')");
  }
  return d;
}

TrainingState from_positional(const std::string& text, const std::string& source) {
  static const char* const kNames[] = {"step",      "epoch",          "next_batch", "elapsed",
                                       "lr",        "lr_best",        "lr_bad",     "best_ppl",
                                       "best_bleu", "bad_validations"};
  std::istringstream in(text);
  double f[10];
  for (int i = 0; i < 10; ++i) {
    std::string field;
    if (!(in >> field)) throw FormatError(source + ": malformed trainer state");
    f[i] = number(field, kNames[i], source);
  }
  TrainingState s;
  s.step = int64_t(f[0]);
  s.epoch = int64_t(f[1]);
  s.next_batch = int64_t(f[2]);
  s.elapsed = f[3];
  s.lr_current = float(f[4]);
  s.lr_best = f[5];
  s.lr_bad = int(f[6]);
  s.best_ppl = f[7];
  s.best_bleu = f[8];
  s.bad_validations = int(f[9]);
  in >> std::ws;
  std::getline(in, s.rng, '\0');
  return s;
}

}  // namespace

std::string TrainingState::to_text() const {
  std::ostringstream out;
  out.precision(17);
  out << "format " << kFormat << "\nstep " << step << "\nepoch " << epoch << "\nnext_batch "
      << next_batch << "\nelapsed " << elapsed << "\nlr " << lr_current << "\nlr_best " << lr_best
      << "\nlr_bad " << lr_bad << "\nbest_ppl " << best_ppl << "\nbest_bleu " << best_bleu
      << "\nbad_validations " << bad_validations << "\nbest_step " << best_step << "\nworld_size "
      << world_size << "\nkept " << kept_steps.size();
  for (const int64_t kept : kept_steps) out << ' ' << kept;
  out << "\ncurve " << curve.size();
  for (const CurvePoint& p : curve) {
    out << ' ' << p.step << ' ' << p.loss << ' ' << p.lr << ' ' << p.valid_ppl << ' '
        << p.valid_bleu;
  }
  out << "\nrng " << rng << '\n';
  return out.str();
}

TrainingState TrainingState::from_text(const std::string& text, const std::string& source) {
  if (!text.empty() && !std::isalpha(static_cast<unsigned char>(text[0]))) {
    return from_positional(text, source);
  }
  std::map<std::string, std::string> fields;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t space = line.find(' ');
    if (line.empty()) continue;
    if (space == std::string::npos) {
      throw FormatError(source + ": malformed trainer state line '" + line + "'");
    }
    fields[line.substr(0, space)] = line.substr(space + 1);
  }
  auto get = [&](const std::string& name) -> const std::string& {
    const auto it = fields.find(name);
    if (it == fields.end()) {
      throw FormatError(source + ": malformed trainer state (no '" + name + "')");
    }
    return it->second;
  };
  auto value = [&](const std::string& name) { return number(get(name), name, source); };
  const double format = value("format");
  if (format > kFormat) {
    throw FormatError(source + ": trainer state format " + get("format") +
                      ", newer than this heed-train reads (" + std::to_string(kFormat) +
                      "); use a newer heed-train");
  }
  TrainingState s;
  s.step = int64_t(value("step"));
  s.epoch = int64_t(value("epoch"));
  s.next_batch = int64_t(value("next_batch"));
  s.elapsed = value("elapsed");
  s.lr_current = float(value("lr"));
  s.lr_best = value("lr_best");
  s.lr_bad = int(value("lr_bad"));
  s.best_ppl = value("best_ppl");
  s.best_bleu = value("best_bleu");
  s.bad_validations = int(value("bad_validations"));
  s.world_size = int(value("world_size"));
  if (fields.count("best_step")) s.best_step = int64_t(value("best_step"));
  s.kept_steps_recorded = fields.count("kept") > 0;
  if (s.kept_steps_recorded) {
    std::istringstream kept(get("kept"));
    size_t count = 0;
    kept >> count;
    for (int64_t step = 0; kept >> step;) s.kept_steps.push_back(step);
    if (kept.bad() || !kept.eof() || s.kept_steps.size() != count) {
      throw FormatError(source + ": malformed trainer state (kept '" + get("kept") + "')");
    }
  }
  if (fields.count("curve")) {
    std::istringstream curve(get("curve"));
    const auto bad = [&] {
      return FormatError(source + ": malformed trainer state (curve '" + get("curve") + "')");
    };
    size_t count = 0;
    if (!(curve >> count)) throw bad();
    std::string a, b, c, d, e;
    while (curve >> a >> b >> c >> d >> e) {
      CurvePoint p;
      p.step = int64_t(number(a, "curve", source));
      p.loss = number(b, "curve", source);
      p.lr = number(c, "curve", source);
      p.valid_ppl = number(d, "curve", source);
      p.valid_bleu = number(e, "curve", source);
      s.curve.push_back(p);
    }
    if (!curve.eof() || s.curve.size() != count) throw bad();
  }
  s.rng = get("rng");
  return s;
}

}  // namespace heed::train
