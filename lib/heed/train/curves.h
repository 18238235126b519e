// Learning curves for users: the metrics of one run or several drawn against updates as one
// self-contained SVG of four panels, training loss, validation perplexity, validation BLEU and
// learning rate (heed-train's DIR/curves.svg, rewritten at every validation, and heed-train
// plot, which draws the --metrics-file of several runs together).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "heed/train/metrics.h"

namespace heed::train {

// What the curves draw of one metrics row; NaN where the row has no such value (a row between
// validations has no perplexity or BLEU).
struct CurvePoint {
  int64_t step = 0;
  double loss = std::numeric_limits<double>::quiet_NaN();
  double lr = std::numeric_limits<double>::quiet_NaN();
  double valid_ppl = std::numeric_limits<double>::quiet_NaN();
  double valid_bleu = std::numeric_limits<double>::quiet_NaN();
};

CurvePoint curve_point(const MetricsRow& row);

struct CurveRun {
  std::string name;  // in the legend
  std::vector<CurvePoint> points;
};

// The SVG (well-formed XML). Each run is a colour in every panel; a validation is one marker
// (class "valid-ppl" and "valid-bleu", a <title> naming run, update and value) in the two
// validation panels, the loss and learning rate are lines. A panel without data says so.
std::string learning_curves_svg(const std::vector<CurveRun>& runs);

// The points of a --metrics-file (its TSV header names the columns; the rows of a resumed run
// appended to it are read too, sorted by update). FileError when it cannot be read, DataError
// naming FILE:LINE for a row that is not a metrics row.
std::vector<CurvePoint> read_metrics_curves(const std::string& path);

}  // namespace heed::train
