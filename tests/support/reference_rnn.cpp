#include "support/reference_rnn.h"

#include <cmath>

namespace heed::test {
namespace {

double sigmoid(double v) {
  return 1.0 / (1.0 + std::exp(-v));
}

// out[g·H + o] = Σ_k w[(g·H + o)·K + k] · v[k]
void matvec(const std::vector<double>& w, const double* v, int64_t rows, int64_t k, double* out) {
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t i = 0; i < k; ++i) s += w[static_cast<size_t>(r * k + i)] * v[i];
    out[r] = s;
  }
}

}  // namespace

ReferenceForward reference_forward(const ReferenceRnn& rnn, const std::vector<double>& x,
                                   int64_t steps, int64_t batch, const std::vector<double>& h0,
                                   const std::vector<double>& c0) {
  const int64_t in = rnn.input, h = rnn.hidden, g = rnn.gates();
  ReferenceForward f;
  f.steps = steps;
  f.batch = batch;
  const size_t state = static_cast<size_t>(batch * h);
  std::vector<double> hs = h0.empty() ? std::vector<double>(state, 0.0) : h0;
  std::vector<double> cs = c0.empty() ? std::vector<double>(state, 0.0) : c0;
  f.y.assign(static_cast<size_t>(steps) * state, 0.0);
  f.h_prev.assign(static_cast<size_t>(steps) * state, 0.0);
  f.c_prev.assign(static_cast<size_t>(steps) * state, 0.0);
  f.c_new.assign(static_cast<size_t>(steps) * state, 0.0);
  f.hidden_n.assign(static_cast<size_t>(steps) * state, 0.0);
  f.act.assign(static_cast<size_t>(steps * batch * g * h), 0.0);
  std::vector<double> gi(static_cast<size_t>(g * h)), gh(static_cast<size_t>(g * h));
  for (int64_t t = 0; t < steps; ++t) {
    for (int64_t n = 0; n < batch; ++n) {
      const size_t s = static_cast<size_t>((t * batch + n) * h);
      double* hp = &hs[static_cast<size_t>(n * h)];
      double* cp = &cs[static_cast<size_t>(n * h)];
      for (int64_t o = 0; o < h; ++o) {
        f.h_prev[s + static_cast<size_t>(o)] = hp[o];
        f.c_prev[s + static_cast<size_t>(o)] = cp[o];
      }
      matvec(rnn.weight_ih, &x[static_cast<size_t>((t * batch + n) * in)], g * h, in, gi.data());
      matvec(rnn.weight_hh, hp, g * h, h, gh.data());
      for (int64_t r = 0; r < g * h; ++r) {
        gi[static_cast<size_t>(r)] += rnn.bias_ih.empty() ? 0 : rnn.bias_ih[static_cast<size_t>(r)];
        gh[static_cast<size_t>(r)] += rnn.bias_hh.empty() ? 0 : rnn.bias_hh[static_cast<size_t>(r)];
      }
      double* act = &f.act[static_cast<size_t>((t * batch + n) * g * h)];
      for (int64_t o = 0; o < h; ++o) {
        const auto at = [&](const std::vector<double>& v, int64_t gate) {
          return v[static_cast<size_t>(gate * h + o)];
        };
        if (rnn.lstm) {
          const double i = sigmoid(at(gi, 0) + at(gh, 0));
          const double fg = sigmoid(at(gi, 1) + at(gh, 1));
          const double gg = std::tanh(at(gi, 2) + at(gh, 2));
          const double og = sigmoid(at(gi, 3) + at(gh, 3));
          const double c = fg * cp[o] + i * gg;
          act[0 * h + o] = i;
          act[1 * h + o] = fg;
          act[2 * h + o] = gg;
          act[3 * h + o] = og;
          f.c_new[s + static_cast<size_t>(o)] = c;
          f.y[s + static_cast<size_t>(o)] = og * std::tanh(c);
        } else {
          const double r = sigmoid(at(gi, 0) + at(gh, 0));
          const double z = sigmoid(at(gi, 1) + at(gh, 1));
          const double nn = std::tanh(at(gi, 2) + r * at(gh, 2));
          act[0 * h + o] = r;
          act[1 * h + o] = z;
          act[2 * h + o] = nn;
          f.hidden_n[s + static_cast<size_t>(o)] = at(gh, 2);
          f.y[s + static_cast<size_t>(o)] = (1 - z) * nn + z * hp[o];
        }
      }
      for (int64_t o = 0; o < h; ++o) {
        hp[o] = f.y[s + static_cast<size_t>(o)];
        if (rnn.lstm) cp[o] = f.c_new[s + static_cast<size_t>(o)];
      }
    }
  }
  f.h_last = hs;
  if (rnn.lstm) f.c_last = cs;
  return f;
}

ReferenceGrads reference_backward(const ReferenceRnn& rnn, const ReferenceForward& f,
                                  const std::vector<double>& x, const std::vector<double>& dy,
                                  const std::vector<double>& dh_last,
                                  const std::vector<double>& dc_last) {
  const int64_t in = rnn.input, h = rnn.hidden, g = rnn.gates();
  const int64_t steps = f.steps, batch = f.batch;
  const size_t state = static_cast<size_t>(batch * h);
  ReferenceGrads d;
  d.dx.assign(static_cast<size_t>(steps * batch * in), 0.0);
  d.dweight_ih.assign(static_cast<size_t>(g * h * in), 0.0);
  d.dweight_hh.assign(static_cast<size_t>(g * h * h), 0.0);
  d.dbias_ih.assign(static_cast<size_t>(g * h), 0.0);
  d.dbias_hh.assign(static_cast<size_t>(g * h), 0.0);
  std::vector<double> dh = dh_last.empty() ? std::vector<double>(state, 0.0) : dh_last;
  std::vector<double> dc = dc_last.empty() ? std::vector<double>(state, 0.0) : dc_last;
  std::vector<double> ai(static_cast<size_t>(g * h)), ah(static_cast<size_t>(g * h));
  for (int64_t t = steps - 1; t >= 0; --t) {
    for (int64_t n = 0; n < batch; ++n) {
      const size_t s = static_cast<size_t>((t * batch + n) * h);
      const double* act = &f.act[static_cast<size_t>((t * batch + n) * g * h)];
      double* dhn = &dh[static_cast<size_t>(n * h)];
      double* dcn = &dc[static_cast<size_t>(n * h)];
      std::vector<double> dh_prev(static_cast<size_t>(h), 0.0);
      for (int64_t o = 0; o < h; ++o) {
        const double dht = dy[s + static_cast<size_t>(o)] + dhn[o];
        if (rnn.lstm) {
          const double i = act[0 * h + o], fg = act[1 * h + o], gg = act[2 * h + o],
                       og = act[3 * h + o];
          const double c = f.c_new[s + static_cast<size_t>(o)];
          const double tc = std::tanh(c);
          const double dct = dcn[o] + dht * og * (1 - tc * tc);
          ai[static_cast<size_t>(0 * h + o)] = dct * gg * i * (1 - i);
          ai[static_cast<size_t>(1 * h + o)] =
              dct * f.c_prev[s + static_cast<size_t>(o)] * fg * (1 - fg);
          ai[static_cast<size_t>(2 * h + o)] = dct * i * (1 - gg * gg);
          ai[static_cast<size_t>(3 * h + o)] = dht * tc * og * (1 - og);
          for (int64_t k = 0; k < 4; ++k)
            ah[static_cast<size_t>(k * h + o)] = ai[static_cast<size_t>(k * h + o)];
          dcn[o] = dct * fg;
        } else {
          const double r = act[0 * h + o], z = act[1 * h + o], nn = act[2 * h + o];
          const double hp = f.h_prev[s + static_cast<size_t>(o)];
          const double dn = dht * (1 - z);
          const double dz = dht * (hp - nn);
          dh_prev[static_cast<size_t>(o)] += dht * z;
          const double dan = dn * (1 - nn * nn);
          const double dr = dan * f.hidden_n[s + static_cast<size_t>(o)];
          ai[static_cast<size_t>(0 * h + o)] = dr * r * (1 - r);
          ai[static_cast<size_t>(1 * h + o)] = dz * z * (1 - z);
          ai[static_cast<size_t>(2 * h + o)] = dan;
          ah[static_cast<size_t>(0 * h + o)] = ai[static_cast<size_t>(0 * h + o)];
          ah[static_cast<size_t>(1 * h + o)] = ai[static_cast<size_t>(1 * h + o)];
          ah[static_cast<size_t>(2 * h + o)] = dan * r;
        }
      }
      const double* xt = &x[static_cast<size_t>((t * batch + n) * in)];
      const double* hpv = &f.h_prev[s];
      for (int64_t r = 0; r < g * h; ++r) {
        const double a = ai[static_cast<size_t>(r)], b = ah[static_cast<size_t>(r)];
        d.dbias_ih[static_cast<size_t>(r)] += a;
        d.dbias_hh[static_cast<size_t>(r)] += b;
        for (int64_t k = 0; k < in; ++k) {
          d.dweight_ih[static_cast<size_t>(r * in + k)] += a * xt[k];
          d.dx[static_cast<size_t>((t * batch + n) * in + k)] +=
              rnn.weight_ih[static_cast<size_t>(r * in + k)] * a;
        }
        for (int64_t k = 0; k < h; ++k) {
          d.dweight_hh[static_cast<size_t>(r * h + k)] += b * hpv[k];
          dh_prev[static_cast<size_t>(k)] += rnn.weight_hh[static_cast<size_t>(r * h + k)] * b;
        }
      }
      for (int64_t o = 0; o < h; ++o) dhn[o] = dh_prev[static_cast<size_t>(o)];
    }
  }
  d.dh0 = dh;
  if (rnn.lstm) d.dc0 = dc;
  return d;
}

}  // namespace heed::test
