#include "heed/onednn/rnn.h"

#include <cstring>
#include <list>
#include <map>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "heed/common/check.h"
#include "heed/common/error.h"
#include "heed/onednn/context.h"
#include "heed/onednn/internal.h"
#include "heed/onednn/lstm_step.h"
#include "heed/onednn/plan_cache.h"

namespace heed::onednn {

using dnnl::memory;
using tensor::DType;
using tensor::Shape;
using tensor::Tensor;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

constexpr auto kLeftToRight = dnnl::rnn_direction::unidirectional_left2right;
// Plans one Rnn keeps: a training run sees one (T, N) per batch shape, a decoder one per N.
constexpr size_t kMaxPlans = 32;
// Packed copies of the weights one Rnn keeps. oneDNN's packed layout depends on N, so a beam
// search, whose live rows shrink step by step, asks for a new layout at nearly every row count:
// kept without bound, they took 690 MB of heed-translate's 1.48 GB (beam 5, batch 64, a
// 512-unit decoder; heaptrack). A plan finds its copies by layout at each run and packs again
// what was evicted.
constexpr size_t kMaxPacked = 8;

// oneDNN gate g of a GRU holds PyTorch gate kGruTorchGate[g]: (u, r, o) ← (z, r, n).
constexpr int kGruTorchGate[3] = {1, 0, 2};

int torch_gate(CellKind cell, int g) {
  return cell == CellKind::kGru ? kGruTorchGate[g] : g;
}

std::string shape_error(const char* what, const Tensor& t, const Shape& expected) {
  return std::string(what) + " has shape " + t.shape().to_string() + ", expected " +
         expected.to_string();
}

void check_shape(const char* what, const Tensor& t, const Shape& expected) {
  HEED_CHECK(t.shape() == expected, shape_error(what, t, expected));
}

void check_f32(const char* what, const Tensor& t, const Shape& expected) {
  check_shape(what, t, expected);
  HEED_CHECK(t.dtype() == DType::kF32, std::string(what) + " must be f32");
}

}  // namespace

int gate_count(CellKind cell) {
  return cell == CellKind::kLstm ? 4 : 3;
}
const char* cell_name(CellKind cell) {
  return cell == CellKind::kLstm ? "lstm" : "gru";
}

void RnnConfig::validate() const {
  if (input_size <= 0 || hidden_size <= 0) {
    throw ConfigError(std::string(cell_name(cell)) + " sizes must be positive, got input " +
                      std::to_string(input_size) + ", hidden " + std::to_string(hidden_size));
  }
}

// ---------------------------------------------------------------------------------------------
// Tape

struct RnnTape::Impl {
  const void* owner = nullptr;  // the Rnn::Impl that recorded it
  bool pending = false;
  int64_t steps = 0;
  int64_t batch = 0;
  // Addresses passed to the forward primitive, in the types it wanted.
  const void* src_layer = nullptr;
  const void* src_iter = nullptr;
  const void* src_iter_c = nullptr;
  const void* dst_layer = nullptr;
  const void* dst_iter = nullptr;
  const void* dst_iter_c = nullptr;
  Tensor workspace;  // raw bytes, held as f32 for the 64-byte aligned allocation
  Tensor x_copy, h0_copy, c0_copy, y_copy, h_copy, c_copy;
  // An LSTM step recorded by heed's own step (lstm_step.h) rather than oneDNN's primitive.
  bool own_step = false;
  detail::LstmStepRecord step;

  size_t bytes() const {
    size_t n = 0;
    for (const Tensor* t : {&workspace, &x_copy, &h0_copy, &c0_copy, &y_copy, &h_copy, &c_copy,
                            &step.xh, &step.gates, &step.c0, &step.tanh_c}) {
      n += t->bytes();
    }
    return n;
  }
};

RnnTape::RnnTape() : impl_(std::make_unique<Impl>()) {}
RnnTape::~RnnTape() = default;
RnnTape::RnnTape(RnnTape&&) noexcept = default;
RnnTape& RnnTape::operator=(RnnTape&&) noexcept = default;
bool RnnTape::pending() const {
  return impl_ && impl_->pending;
}
size_t RnnTape::bytes() const {
  return impl_ ? impl_->bytes() : 0;
}

// ---------------------------------------------------------------------------------------------
// Rnn

struct Rnn::Impl {
  // A parameter matrix reordered into a layout some primitive asked for.
  struct Packed {
    memory::desc desc;
    bool layer = true;  // weights_layer (ih) or weights_iter (hh)
    memory mem;
    uint64_t version = ~0ull;
  };
  // A diff-weights accumulator in the layout some backward primitive writes.
  struct Accumulator {
    memory::desc desc;
    bool layer = true;
    memory mem;
    // LSTM: adds the accumulator into the caller's PyTorch-layout gradient in one reorder.
    memory target;
    dnnl::reorder add_to_target;
  };

  struct Plan {
    bool training = false;
    int64_t steps = 0;
    int64_t batch = 0;
    dnnl::lstm_forward::primitive_desc lstm_pd;
    dnnl::lbr_gru_forward::primitive_desc gru_pd;
    dnnl::primitive forward;
    size_t workspace_bytes = 0;
    memory::desc packed_layer, packed_iter;  // the layouts of the weights the primitive wants
    memory src_layer, src_iter, src_iter_c, dst_layer, dst_iter, dst_iter_c, workspace;
    memory scratch, b_scratch;  // pointed at shared_scratchpad() before each execution
    std::unordered_map<int, memory> forward_args;

    bool has_backward = false;
    dnnl::primitive backward;
    memory::desc bwd_packed_layer, bwd_packed_iter;
    memory b_src_layer, b_src_iter, b_src_iter_c, b_dst_layer, b_dst_iter, b_dst_iter_c,
        b_workspace;
    memory diff_src_layer, diff_src_iter, diff_src_iter_c, diff_dst_layer, diff_dst_iter,
        diff_dst_iter_c;
    std::unordered_map<int, memory> backward_args;
  };

  RnnConfig config;
  bool lstm = true;
  int64_t gates = 4;       // G
  int64_t bias_gates = 4;  // G, or G + 1 for lbr_gru
  dt data_type = dt::f32;

  // Views of the caller's parameters (share ownership of owning tensors; survive moves).
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
  bool has_weights = false;
  uint64_t version = 0;
  uint64_t staged_version = ~0ull;
  // f32 ldgoi copies in oneDNN gate order (GRU only; an LSTM reads the master directly).
  Tensor stage_layer, stage_iter;
  memory stage_layer_mem, stage_iter_mem;
  Tensor bias;               // [bias_gates · H], b_ih + b_hh mapped to oneDNN gates
  Tensor diff_bias;          // accumulates
  std::list<Packed> packed;  // most recently used first, at most kMaxPacked
  std::vector<Accumulator> accumulators;
  Tensor grad_stage;  // flush_grads(): one ldgoi matrix in oneDNN gate order
  // An LSTM's T = 1 training calls (lstm_step.h says why), made on first use.
  std::unique_ptr<detail::LstmStep> own_step;
  dnnl::primitive_attr scratchpad_attr;
  void bind_scratchpad(memory& scratch);

  // Bounded (plan_cache.h): one plan per (pass, T, N) seen.
  using PlanKey = std::tuple<bool, int64_t, int64_t>;
  detail::PlanCache<PlanKey, Plan, detail::TupleHash> plans{kMaxPlans};
  RnnTape inference_tape;
  // backward() scratch, reused.
  Tensor zero_h, zero_c, dy_copy, dh_copy, dc_copy, dx_scratch, dh0_scratch, dc0_scratch;

  explicit Impl(const RnnConfig& c);

  memory::desc weights_desc(bool layer, dt type, tag layout) const {
    const int64_t in = layer ? config.input_size : config.hidden_size;
    return memory::desc({1, 1, in, gates, config.hidden_size}, type, layout);
  }
  memory::desc data_desc(int64_t steps, int64_t batch, int64_t width, dt type) const {
    return memory::desc({steps, batch, width}, type, tag::tnc);
  }
  memory::desc state_desc(int64_t batch, dt type) const {
    return memory::desc({1, 1, batch, config.hidden_size}, type, tag::ldnc);
  }
  memory::desc bias_desc() const {
    return memory::desc({1, 1, bias_gates, config.hidden_size}, dt::f32, tag::ldgo);
  }

  Packed& packed_for(const memory::desc& desc, bool layer);
  int accumulator_index(const memory::desc& desc, bool layer);
  void stage();
  // The packed copies of both weights in the layouts desc_layer, desc_iter, current, bound as
  // args' weights (unbound again after the run, so that an evicted copy is freed).
  void bind_packed(const memory::desc& desc_layer, const memory::desc& desc_iter,
                   std::unordered_map<int, memory>& args);
  Plan& plan(bool training, int64_t steps, int64_t batch);
  Plan make_plan(bool training, int64_t steps, int64_t batch);
  void build_backward(Plan& p);
  void forward(const RnnInputs& in, const RnnOutputs& out, RnnTape::Impl& tape, bool training);
  void backward(RnnTape::Impl& tape, const RnnOutputGrads& go, const RnnInputGrads& gi);
  void flush(const RnnGrads& grads);
};

Rnn::Impl::Impl(const RnnConfig& c)
    : config(c),
      lstm(c.cell == CellKind::kLstm),
      gates(gate_count(c.cell)),
      bias_gates(c.cell == CellKind::kLstm ? 4 : 3 + 1),  // lbr_gru has the extra u' bias
      data_type(detail::to_dnnl(c.precision)) {
  scratchpad_attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const int64_t h = c.hidden_size;
  bias = Tensor(Shape({bias_gates * h}));
  diff_bias = Tensor(Shape({bias_gates * h}));
  if (!lstm) {
    stage_layer = Tensor(Shape({gates * h, c.input_size}));
    stage_iter = Tensor(Shape({gates * h, h}));
  }
  const dnnl::engine& eng = detail::engine();
  stage_layer_mem = memory(weights_desc(true, dt::f32, tag::ldgoi), eng, nullptr);
  stage_iter_mem = memory(weights_desc(false, dt::f32, tag::ldgoi), eng, nullptr);
}

Rnn::Impl::Packed& Rnn::Impl::packed_for(const memory::desc& desc, bool layer) {
  if (Packed* found = detail::find_most_recent(
          packed, [&](const Packed& p) { return p.layer == layer && p.desc == desc; })) {
    return *found;
  }
  if (packed.size() >= kMaxPacked) packed.pop_back();
  packed.push_front(Packed{desc, layer, memory(desc, detail::engine()), ~0ull});
  return packed.front();
}

int Rnn::Impl::accumulator_index(const memory::desc& desc, bool layer) {
  for (size_t i = 0; i < accumulators.size(); ++i) {
    if (accumulators[i].layer == layer && accumulators[i].desc == desc) return static_cast<int>(i);
  }
  memory mem(desc, detail::engine());
  std::memset(mem.get_data_handle(), 0, desc.get_size());
  Accumulator acc{desc, layer, mem, memory(), dnnl::reorder()};
  if (lstm) {
    // Same gate order as PyTorch: a reorder with a sum post-op adds straight into the
    // caller's [4H, in] gradient (ldgoi), threaded.
    acc.target = memory(weights_desc(layer, dt::f32, tag::ldgoi), detail::engine(), nullptr);
    dnnl::post_ops ops;
    ops.append_sum(1.f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    acc.add_to_target = dnnl::reorder(dnnl::reorder::primitive_desc(
        detail::engine(), desc, detail::engine(), acc.target.get_desc(), attr));
  }
  accumulators.push_back(std::move(acc));
  return static_cast<int>(accumulators.size() - 1);
}

// Builds the oneDNN-order sources of the reorders (and the bias) for the current version.
void Rnn::Impl::stage() {
  if (staged_version == version) return;
  HEED_CHECK(has_weights, std::string(cell_name(config.cell)) + " used before set_weights");
  const int64_t h = config.hidden_size;
  if (lstm) {
    detail::point(stage_layer_mem, weight_ih.data());
    detail::point(stage_iter_mem, weight_hh.data());
  } else {
    for (int g = 0; g < 3; ++g) {
      const int64_t src = torch_gate(config.cell, g);
      std::memcpy(stage_layer.data() + g * h * config.input_size,
                  weight_ih.data() + src * h * config.input_size,
                  static_cast<size_t>(h * config.input_size) * sizeof(float));
      std::memcpy(stage_iter.data() + g * h * h, weight_hh.data() + src * h * h,
                  static_cast<size_t>(h * h) * sizeof(float));
    }
    detail::point(stage_layer_mem, stage_layer.data());
    detail::point(stage_iter_mem, stage_iter.data());
  }
  const float* bih = bias_ih.empty() ? nullptr : bias_ih.data();
  const float* bhh = bias_hh.empty() ? nullptr : bias_hh.data();
  const auto at = [h](const float* b, int64_t gate, int64_t o) {
    return b ? b[gate * h + o] : 0.f;
  };
  float* b = bias.data();
  for (int64_t o = 0; o < h; ++o) {
    if (lstm) {
      for (int64_t g = 0; g < 4; ++g) b[g * h + o] = at(bih, g, o) + at(bhh, g, o);
    } else {
      b[0 * h + o] = at(bih, 1, o) + at(bhh, 1, o);  // u ← z
      b[1 * h + o] = at(bih, 0, o) + at(bhh, 0, o);  // r ← r
      b[2 * h + o] = at(bih, 2, o);                  // o ← input part of n
      b[3 * h + o] = at(bhh, 2, o);                  // u' ← hidden part of n
    }
  }
  staged_version = version;
}

void Rnn::Impl::bind_packed(const memory::desc& desc_layer, const memory::desc& desc_iter,
                            std::unordered_map<int, memory>& args) {
  for (const bool layer : {true, false}) {
    // The first copy stays at the front while the second is found: kMaxPacked ≥ 2 keeps it.
    Packed& p = packed_for(layer ? desc_layer : desc_iter, layer);
    if (p.version != version) {
      stage();
      memory& src = layer ? stage_layer_mem : stage_iter_mem;
      dnnl::reorder(src, p.mem).execute(detail::stream(), src, p.mem);
      detail::stream().wait();
      p.version = version;
    }
    args[layer ? DNNL_ARG_WEIGHTS_LAYER : DNNL_ARG_WEIGHTS_ITER] = p.mem;
  }
}

Rnn::Impl::Plan& Rnn::Impl::plan(bool training, int64_t steps, int64_t batch) {
  return plans.get(std::make_tuple(training, steps, batch),
                   [&] { return make_plan(training, steps, batch); });
}

Rnn::Impl::Plan Rnn::Impl::make_plan(bool training, int64_t steps, int64_t batch) {
  const dnnl::engine& eng = detail::engine();
  const int64_t in = config.input_size;
  const int64_t h = config.hidden_size;
  const auto prop =
      training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
  const memory::desc src_layer = data_desc(steps, batch, in, data_type);
  const memory::desc src_iter = state_desc(batch, data_type);
  const memory::desc iter_c = state_desc(batch, dt::f32);
  const memory::desc dst_layer = data_desc(steps, batch, h, data_type);
  const memory::desc wl = weights_desc(true, data_type, tag::any);
  const memory::desc wi = weights_desc(false, data_type, tag::any);

  Plan p;
  p.training = training;
  p.steps = steps;
  p.batch = batch;
  memory::desc wl_chosen, wi_chosen, ws_md;
  if (lstm) {
    p.lstm_pd = dnnl::lstm_forward::primitive_desc(
        dnnl::lstm_forward::desc(prop, kLeftToRight, src_layer, src_iter, iter_c, wl, wi,
                                 bias_desc(), dst_layer, src_iter, iter_c),
        scratchpad_attr, eng);
    p.forward = dnnl::lstm_forward(p.lstm_pd);
    wl_chosen = p.lstm_pd.weights_layer_desc();
    wi_chosen = p.lstm_pd.weights_iter_desc();
    ws_md = p.lstm_pd.workspace_desc();
    p.scratch = memory(p.lstm_pd.scratchpad_desc(), eng, nullptr);
  } else {
    p.gru_pd = dnnl::lbr_gru_forward::primitive_desc(
        dnnl::lbr_gru_forward::desc(prop, kLeftToRight, src_layer, src_iter, wl, wi, bias_desc(),
                                    dst_layer, src_iter),
        scratchpad_attr, eng);
    p.forward = dnnl::lbr_gru_forward(p.gru_pd);
    wl_chosen = p.gru_pd.weights_layer_desc();
    wi_chosen = p.gru_pd.weights_iter_desc();
    ws_md = p.gru_pd.workspace_desc();
    p.scratch = memory(p.gru_pd.scratchpad_desc(), eng, nullptr);
  }
  p.packed_layer = wl_chosen;
  p.packed_iter = wi_chosen;
  p.workspace_bytes = training ? ws_md.get_size() : 0;

  p.src_layer = memory(src_layer, eng, nullptr);
  p.src_iter = memory(src_iter, eng, nullptr);
  p.dst_layer = memory(dst_layer, eng, nullptr);
  p.dst_iter = memory(src_iter, eng, nullptr);
  p.forward_args = {{DNNL_ARG_SRC_LAYER, p.src_layer},
                    {DNNL_ARG_SRC_ITER, p.src_iter},
                    {DNNL_ARG_BIAS, memory(bias_desc(), eng, bias.data())},
                    {DNNL_ARG_DST_LAYER, p.dst_layer},
                    {DNNL_ARG_DST_ITER, p.dst_iter},
                    {DNNL_ARG_SCRATCHPAD, p.scratch}};
  if (lstm) {
    p.src_iter_c = memory(iter_c, eng, nullptr);
    p.dst_iter_c = memory(iter_c, eng, nullptr);
    p.forward_args[DNNL_ARG_SRC_ITER_C] = p.src_iter_c;
    p.forward_args[DNNL_ARG_DST_ITER_C] = p.dst_iter_c;
  }
  if (training) {
    p.workspace = memory(ws_md, eng, nullptr);
    p.forward_args[DNNL_ARG_WORKSPACE] = p.workspace;
  }
  return p;
}

// The primitives' scratchpad (scratchpad_mode::user), one for every Rnn on a thread and only
// ever grown. oneDNN's own mode allocates one per execution, in a size per shape, and a
// translation stream's heap fragmented until its resident memory kept growing (issue 29). One
// per Rnn held 61 MB for each direction of a 256-unit encoder at batch 64 (heaptrack);
// executions on one thread never overlap and a scratchpad holds nothing from one to the next.
// A second thread has its own only when it runs RNNs (the training encoder's second direction,
// Encoder's run_directions).
namespace {
Tensor& shared_scratchpad() {
  thread_local Tensor buffer;
  return buffer;
}
}  // namespace

void Rnn::Impl::bind_scratchpad(memory& scratch) {
  Tensor& scratchpad = shared_scratchpad();
  const size_t bytes = scratch.get_desc().get_size();
  if (scratchpad.bytes() < bytes) {
    scratchpad.resize(Shape({static_cast<int64_t>((bytes + 3) / 4)}));
  }
  detail::point(scratch, scratchpad.raw());
}

void Rnn::Impl::build_backward(Plan& p) {
  if (p.has_backward) return;
  const dnnl::engine& eng = detail::engine();
  const int64_t in = config.input_size;
  const int64_t h = config.hidden_size;
  const auto bwd = dnnl::prop_kind::backward;
  const memory::desc src_layer = data_desc(p.steps, p.batch, in, data_type);
  const memory::desc src_iter = state_desc(p.batch, data_type);
  const memory::desc iter_c = state_desc(p.batch, dt::f32);
  const memory::desc dst_layer = data_desc(p.steps, p.batch, h, data_type);
  const memory::desc wl = weights_desc(true, data_type, tag::any);
  const memory::desc wi = weights_desc(false, data_type, tag::any);
  const memory::desc d_src_layer = data_desc(p.steps, p.batch, in, dt::f32);
  const memory::desc d_state = state_desc(p.batch, dt::f32);
  const memory::desc d_dst_layer = data_desc(p.steps, p.batch, h, dt::f32);
  const memory::desc dwl = weights_desc(true, dt::f32, tag::any);
  const memory::desc dwi = weights_desc(false, dt::f32, tag::any);

  memory::desc wl_chosen, wi_chosen, dwl_chosen, dwi_chosen, ws_md;
  if (lstm) {
    dnnl::lstm_backward::primitive_desc pd(
        dnnl::lstm_backward::desc(bwd, kLeftToRight, src_layer, src_iter, iter_c, wl, wi,
                                  bias_desc(), dst_layer, src_iter, iter_c, d_src_layer, d_state,
                                  d_state, dwl, dwi, bias_desc(), d_dst_layer, d_state, d_state),
        scratchpad_attr, eng, p.lstm_pd);
    p.backward = dnnl::lstm_backward(pd);
    wl_chosen = pd.weights_layer_desc();
    wi_chosen = pd.weights_iter_desc();
    dwl_chosen = pd.diff_weights_layer_desc();
    dwi_chosen = pd.diff_weights_iter_desc();
    ws_md = pd.workspace_desc();
    p.b_scratch = memory(pd.scratchpad_desc(), eng, nullptr);
  } else {
    dnnl::lbr_gru_backward::primitive_desc pd(
        dnnl::lbr_gru_backward::desc(bwd, kLeftToRight, src_layer, src_iter, wl, wi, bias_desc(),
                                     dst_layer, src_iter, d_src_layer, d_state, dwl, dwi,
                                     bias_desc(), d_dst_layer, d_state),
        scratchpad_attr, eng, p.gru_pd);
    p.backward = dnnl::lbr_gru_backward(pd);
    wl_chosen = pd.weights_layer_desc();
    wi_chosen = pd.weights_iter_desc();
    dwl_chosen = pd.diff_weights_layer_desc();
    dwi_chosen = pd.diff_weights_iter_desc();
    ws_md = pd.workspace_desc();
    p.b_scratch = memory(pd.scratchpad_desc(), eng, nullptr);
  }
  HEED_CHECK(ws_md.get_size() == p.workspace_bytes, "rnn backward workspace differs from forward");
  p.bwd_packed_layer = wl_chosen;
  p.bwd_packed_iter = wi_chosen;
  const int acc_layer = accumulator_index(dwl_chosen, true);
  const int acc_iter = accumulator_index(dwi_chosen, false);

  p.b_src_layer = memory(src_layer, eng, nullptr);
  p.b_src_iter = memory(src_iter, eng, nullptr);
  p.b_dst_layer = memory(dst_layer, eng, nullptr);
  p.b_dst_iter = memory(src_iter, eng, nullptr);
  p.b_workspace = memory(ws_md, eng, nullptr);
  p.diff_src_layer = memory(d_src_layer, eng, nullptr);
  p.diff_src_iter = memory(d_state, eng, nullptr);
  p.diff_dst_layer = memory(d_dst_layer, eng, nullptr);
  p.diff_dst_iter = memory(d_state, eng, nullptr);
  p.backward_args = {
      {DNNL_ARG_SRC_LAYER, p.b_src_layer},
      {DNNL_ARG_SRC_ITER, p.b_src_iter},
      {DNNL_ARG_BIAS, memory(bias_desc(), eng, bias.data())},
      {DNNL_ARG_DST_LAYER, p.b_dst_layer},
      {DNNL_ARG_DST_ITER, p.b_dst_iter},
      {DNNL_ARG_WORKSPACE, p.b_workspace},
      {DNNL_ARG_DIFF_SRC_LAYER, p.diff_src_layer},
      {DNNL_ARG_DIFF_SRC_ITER, p.diff_src_iter},
      {DNNL_ARG_DIFF_WEIGHTS_LAYER, accumulators[static_cast<size_t>(acc_layer)].mem},
      {DNNL_ARG_DIFF_WEIGHTS_ITER, accumulators[static_cast<size_t>(acc_iter)].mem},
      {DNNL_ARG_DIFF_BIAS, memory(bias_desc(), eng, diff_bias.data())},
      {DNNL_ARG_DIFF_DST_LAYER, p.diff_dst_layer},
      {DNNL_ARG_DIFF_DST_ITER, p.diff_dst_iter},
      {DNNL_ARG_SCRATCHPAD, p.b_scratch}};
  if (lstm) {
    p.b_src_iter_c = memory(iter_c, eng, nullptr);
    p.b_dst_iter_c = memory(iter_c, eng, nullptr);
    p.diff_src_iter_c = memory(d_state, eng, nullptr);
    p.diff_dst_iter_c = memory(d_state, eng, nullptr);
    p.backward_args[DNNL_ARG_SRC_ITER_C] = p.b_src_iter_c;
    p.backward_args[DNNL_ARG_DST_ITER_C] = p.b_dst_iter_c;
    p.backward_args[DNNL_ARG_DIFF_SRC_ITER_C] = p.diff_src_iter_c;
    p.backward_args[DNNL_ARG_DIFF_DST_ITER_C] = p.diff_dst_iter_c;
  }
  p.has_backward = true;
}

namespace {

tensor::DType tensor_type(dt type) {
  return type == dt::f32 ? DType::kF32 : DType::kBF16;
}

// The address of `t` in type `type`: t itself when it already has that type, else a converted
// copy in `copy`.
const void* as_type(const Tensor& t, dt type, Tensor& copy) {
  if (detail::to_dnnl(t.dtype()) == type) return t.raw();
  copy.resize(t.shape(), tensor_type(type));
  detail::convert(t.raw(), detail::to_dnnl(t.dtype()), copy.raw(), type, t.numel());
  return copy.raw();
}

// Zeros of shape/type in `buffer`.
const void* zeros(Tensor& buffer, const Shape& shape, dt type) {
  buffer.resize(shape, tensor_type(type));
  buffer.zero();
  return buffer.raw();
}

// Where the primitive writes an output: straight into `t` when it exists with that type, else
// into `copy` (converted into t afterwards by copy_back).
void* output_of(Tensor* t, dt type, Tensor& copy, const Shape& shape) {
  if (t != nullptr && detail::to_dnnl(t->dtype()) == type) return t->raw();
  copy.resize(shape, tensor_type(type));
  return copy.raw();
}

void copy_back(Tensor* t, const void* written, dt type) {
  if (t == nullptr || t->raw() == written) return;
  detail::convert(written, type, t->raw(), detail::to_dnnl(t->dtype()), t->numel());
}

}  // namespace

void Rnn::Impl::forward(const RnnInputs& in, const RnnOutputs& out, RnnTape::Impl& tape,
                        bool training) {
  HEED_CHECK(in.x != nullptr && out.y != nullptr, "rnn forward needs x and y");
  const Tensor& x = *in.x;
  HEED_CHECK(x.rank() == 3, "rnn x must be [T, N, I], got " + x.shape().to_string());
  const int64_t steps = x.dim(0);
  const int64_t batch = x.dim(1);
  const int64_t h = config.hidden_size;
  HEED_CHECK(steps > 0 && batch > 0, "rnn forward on an empty batch " + x.shape().to_string());
  check_shape("rnn x", x, Shape({steps, batch, config.input_size}));
  check_shape("rnn y", *out.y, Shape({steps, batch, h}));
  const Shape state({batch, h});
  if (in.h0) check_shape("rnn h0", *in.h0, state);
  if (out.h_last) check_shape("rnn h_last", *out.h_last, state);
  HEED_CHECK(lstm || (in.c0 == nullptr && out.c_last == nullptr), "gru has no cell state");
  if (in.c0) check_shape("rnn c0", *in.c0, state);
  if (out.c_last) check_shape("rnn c_last", *out.c_last, state);

  tape.owner = this;
  tape.steps = steps;
  tape.batch = batch;
  tape.pending = false;
  tape.own_step = training && lstm && steps == 1 && config.own_lstm_step;
  if (tape.own_step) {
    stage();  // the bias
    if (!own_step) {
      own_step = std::make_unique<detail::LstmStep>(config.input_size, h, config.precision);
    }
    own_step->set_weights(weight_ih, weight_hh, version);
    own_step->forward(x, in.h0, in.c0, bias, out.y, out.h_last, out.c_last, tape.step);
    tape.pending = true;
    return;
  }

  Plan& p = plan(training, steps, batch);
  bind_packed(p.packed_layer, p.packed_iter, p.forward_args);
  stage();  // the bias

  tape.src_layer = as_type(x, data_type, tape.x_copy);
  tape.src_iter =
      in.h0 ? as_type(*in.h0, data_type, tape.h0_copy) : zeros(tape.h0_copy, state, data_type);
  tape.dst_layer = output_of(out.y, data_type, tape.y_copy, out.y->shape());
  tape.dst_iter = output_of(out.h_last, data_type, tape.h_copy, state);
  detail::point(p.src_layer, tape.src_layer);
  detail::point(p.src_iter, tape.src_iter);
  detail::point(p.dst_layer, tape.dst_layer);
  detail::point(p.dst_iter, tape.dst_iter);
  if (lstm) {
    tape.src_iter_c =
        in.c0 ? as_type(*in.c0, dt::f32, tape.c0_copy) : zeros(tape.c0_copy, state, dt::f32);
    tape.dst_iter_c = output_of(out.c_last, dt::f32, tape.c_copy, state);
    detail::point(p.src_iter_c, tape.src_iter_c);
    detail::point(p.dst_iter_c, tape.dst_iter_c);
  }
  if (training) {
    const int64_t words = static_cast<int64_t>((p.workspace_bytes + 3) / 4);
    if (tape.workspace.numel() != words) tape.workspace.resize(Shape({words}));
    detail::point(p.workspace, tape.workspace.raw());
  }
  dnnl::stream& strm = detail::stream();
  bind_scratchpad(p.scratch);
  p.forward.execute(strm, p.forward_args);
  strm.wait();
  p.forward_args.erase(DNNL_ARG_WEIGHTS_LAYER);
  p.forward_args.erase(DNNL_ARG_WEIGHTS_ITER);
  copy_back(out.y, tape.dst_layer, data_type);
  copy_back(out.h_last, tape.dst_iter, data_type);
  if (lstm) copy_back(out.c_last, tape.dst_iter_c, dt::f32);
  tape.pending = training;
}

void Rnn::Impl::backward(RnnTape::Impl& tape, const RnnOutputGrads& go, const RnnInputGrads& gi) {
  HEED_CHECK(tape.pending, "rnn backward without a pending forward_training");
  HEED_CHECK(tape.owner == this, "rnn backward with a tape recorded by another Rnn");
  const int64_t steps = tape.steps;
  const int64_t batch = tape.batch;
  const int64_t h = config.hidden_size;
  const Shape state({batch, h});
  HEED_CHECK(go.dy != nullptr, "rnn backward needs dy");
  check_shape("rnn dy", *go.dy, Shape({steps, batch, h}));
  if (go.dh_last) check_shape("rnn dh_last", *go.dh_last, state);
  HEED_CHECK(lstm || (go.dc_last == nullptr && gi.dc0 == nullptr), "gru has no cell state");
  if (go.dc_last) check_shape("rnn dc_last", *go.dc_last, state);
  if (gi.dx) check_f32("rnn dx", *gi.dx, Shape({steps, batch, config.input_size}));
  if (gi.dh0) check_f32("rnn dh0", *gi.dh0, state);
  if (gi.dc0) check_f32("rnn dc0", *gi.dc0, state);

  if (tape.own_step) {
    own_step->backward(tape.step, go.dy, go.dh_last, go.dc_last, gi.dx, gi.dh0, gi.dc0,
                       diff_bias.data());
    tape.pending = false;
    return;
  }
  // By key, not by pointer: the plan may have been evicted (and is then made again).
  Plan& p = plan(true, tape.steps, tape.batch);
  build_backward(p);
  bind_packed(p.bwd_packed_layer, p.bwd_packed_iter, p.backward_args);
  stage();

  detail::point(p.b_src_layer, tape.src_layer);
  detail::point(p.b_src_iter, tape.src_iter);
  detail::point(p.b_dst_layer, tape.dst_layer);
  detail::point(p.b_dst_iter, tape.dst_iter);
  detail::point(p.b_workspace, tape.workspace.raw());
  detail::point(p.diff_dst_layer, as_type(*go.dy, dt::f32, dy_copy));
  detail::point(p.diff_dst_iter, go.dh_last ? as_type(*go.dh_last, dt::f32, dh_copy)
                                            : zeros(zero_h, state, dt::f32));
  detail::point(p.diff_src_layer,
                output_of(gi.dx, dt::f32, dx_scratch, Shape({steps, batch, config.input_size})));
  detail::point(p.diff_src_iter, output_of(gi.dh0, dt::f32, dh0_scratch, state));
  if (lstm) {
    detail::point(p.b_src_iter_c, tape.src_iter_c);
    detail::point(p.b_dst_iter_c, tape.dst_iter_c);
    detail::point(p.diff_dst_iter_c, go.dc_last ? as_type(*go.dc_last, dt::f32, dc_copy)
                                                : zeros(zero_c, state, dt::f32));
    detail::point(p.diff_src_iter_c, output_of(gi.dc0, dt::f32, dc0_scratch, state));
  }
  dnnl::stream& strm = detail::stream();
  bind_scratchpad(p.b_scratch);
  p.backward.execute(strm, p.backward_args);
  strm.wait();
  p.backward_args.erase(DNNL_ARG_WEIGHTS_LAYER);
  p.backward_args.erase(DNNL_ARG_WEIGHTS_ITER);
  tape.pending = false;
}

void Rnn::Impl::flush(const RnnGrads& grads) {
  const int64_t h = config.hidden_size;
  const dnnl::engine& eng = detail::engine();
  if (grads.weight_ih)
    check_f32("rnn weight_ih gradient", *grads.weight_ih, Shape({gates * h, config.input_size}));
  if (grads.weight_hh) check_f32("rnn weight_hh gradient", *grads.weight_hh, Shape({gates * h, h}));
  if (own_step) own_step->flush(grads.weight_ih, grads.weight_hh);
  for (Accumulator& acc : accumulators) {
    Tensor* target = acc.layer ? grads.weight_ih : grads.weight_hh;
    const int64_t in = acc.layer ? config.input_size : h;
    if (target != nullptr && lstm) {
      detail::point(acc.target, target->data());
      acc.add_to_target.execute(detail::stream(), acc.mem, acc.target);
      detail::stream().wait();
    } else if (target != nullptr) {
      // GRU: gate blocks are permuted, so go through a plain copy in oneDNN order.
      grad_stage.resize(Shape({gates * h * in}));
      memory stage_mem(weights_desc(acc.layer, dt::f32, tag::ldgoi), eng, grad_stage.data());
      dnnl::reorder(acc.mem, stage_mem).execute(detail::stream(), acc.mem, stage_mem);
      detail::stream().wait();
      const int64_t block = h * in;
      for (int g = 0; g < gates; ++g) {
        const float* src = grad_stage.data() + g * block;
        float* dst = target->data() + torch_gate(config.cell, g) * block;
        for (int64_t i = 0; i < block; ++i) dst[i] += src[i];
      }
    }
    std::memset(acc.mem.get_data_handle(), 0, acc.desc.get_size());
  }
  if (grads.bias_ih) check_f32("rnn bias_ih gradient", *grads.bias_ih, Shape({gates * h}));
  if (grads.bias_hh) check_f32("rnn bias_hh gradient", *grads.bias_hh, Shape({gates * h}));
  const float* db = diff_bias.data();
  float* dih = grads.bias_ih ? grads.bias_ih->data() : nullptr;
  float* dhh = grads.bias_hh ? grads.bias_hh->data() : nullptr;
  for (int64_t o = 0; o < h; ++o) {
    if (lstm) {
      for (int64_t g = 0; g < 4; ++g) {
        if (dih) dih[g * h + o] += db[g * h + o];
        if (dhh) dhh[g * h + o] += db[g * h + o];
      }
    } else {
      const float du = db[0 * h + o], dr = db[1 * h + o], dn_in = db[2 * h + o],
                  dn_hidden = db[3 * h + o];
      if (dih) {
        dih[0 * h + o] += dr;
        dih[1 * h + o] += du;
        dih[2 * h + o] += dn_in;
      }
      if (dhh) {
        dhh[0 * h + o] += dr;
        dhh[1 * h + o] += du;
        dhh[2 * h + o] += dn_hidden;
      }
    }
  }
  diff_bias.zero();
}

Rnn::Rnn(const RnnConfig& config) {
  config.validate();
  const std::string what =
      std::string(cell_name(config.cell)) + " (" + precision_name(config.precision) + ")";
  require_precision(config.precision, what);
  impl_ = std::make_unique<Impl>(config);
  if (config.precision == Precision::kBF16) {
    // Ask oneDNN for this cell's bf16 forward and backward on a tiny shape.
    bool ok = true;
    try {
      Impl::Plan& p = impl_->plan(true, 2, 2);
      impl_->build_backward(p);
    } catch (const dnnl::error&) {
      ok = false;
    }
    impl_->plans.clear();
    impl_->packed.clear();
    impl_->accumulators.clear();
    if (!ok) throw ConfigError(what + ": oneDNN has no bf16 implementation on this CPU");
  }
}

Rnn::~Rnn() = default;
Rnn::Rnn(Rnn&&) noexcept = default;
Rnn& Rnn::operator=(Rnn&&) noexcept = default;

const RnnConfig& Rnn::config() const {
  return impl_->config;
}

void Rnn::set_weights(const RnnWeights& w) {
  const RnnConfig& c = impl_->config;
  const int64_t gh = gate_count(c.cell) * c.hidden_size;
  HEED_CHECK(w.weight_ih != nullptr && w.weight_hh != nullptr, "rnn weights missing");
  check_f32("rnn weight_ih", *w.weight_ih, Shape({gh, c.input_size}));
  check_f32("rnn weight_hh", *w.weight_hh, Shape({gh, c.hidden_size}));
  if (w.bias_ih) check_f32("rnn bias_ih", *w.bias_ih, Shape({gh}));
  if (w.bias_hh) check_f32("rnn bias_hh", *w.bias_hh, Shape({gh}));
  impl_->weight_ih = w.weight_ih->view(w.weight_ih->shape());
  impl_->weight_hh = w.weight_hh->view(w.weight_hh->shape());
  impl_->bias_ih = w.bias_ih ? w.bias_ih->view(w.bias_ih->shape()) : Tensor();
  impl_->bias_hh = w.bias_hh ? w.bias_hh->view(w.bias_hh->shape()) : Tensor();
  impl_->has_weights = true;
  weights_changed();
}

void Rnn::weights_changed() {
  ++impl_->version;
}

void Rnn::forward_inference(const RnnInputs& in, const RnnOutputs& out) {
  detail::guarded("rnn forward_inference",
                  [&] { impl_->forward(in, out, *impl_->inference_tape.impl_, false); });
}

void Rnn::forward_training(const RnnInputs& in, const RnnOutputs& out, RnnTape& tape) {
  detail::guarded("rnn forward_training", [&] { impl_->forward(in, out, *tape.impl_, true); });
}

void Rnn::backward(RnnTape& tape, const RnnOutputGrads& grads_out, const RnnInputGrads& grads_in) {
  detail::guarded("rnn backward", [&] { impl_->backward(*tape.impl_, grads_out, grads_in); });
}

void Rnn::flush_grads(const RnnGrads& grads) {
  detail::guarded("rnn flush_grads", [&] { impl_->flush(grads); });
}

size_t Rnn::plan_count() const {
  return impl_->plans.size();
}

size_t Rnn::packed_count() const {
  return impl_->packed.size();
}

}  // namespace heed::onednn
