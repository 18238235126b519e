// heed-bench-attn --plot (issue 16): the median time of each point against its source length on
// log-log axes, as a self-contained SVG (no scripts, fonts or files referenced; well-formed XML).
//
// One series per group of points equal in everything but the source length (the groups of the
// growth fit): a polyline through its points in order of S, a marker per point (its <title>, a
// tooltip, gives S and the time). A grid with several values of other dimensions (mode, pass,
// precision, hidden, …) therefore draws one series per distinct combination: the line under the
// title names the values every point shares, each legend entry its mechanism, the values that
// vary between series, and its growth exponent (the least-squares slope of log time on log S;
// "-" for a series of a single length). Both axes have a tick and a label at every power of ten
// of their range, and unlabelled ticks at 2…9 times it. Points whose time is not positive are
// left out (a log axis cannot place them). The width grows with the longest legend entry.
#pragma once

#include <string>
#include <vector>

#include "report.h"

namespace heed::bench_attn {

std::string bench_plot_svg(const std::vector<BenchResult>& results);

}  // namespace heed::bench_attn
