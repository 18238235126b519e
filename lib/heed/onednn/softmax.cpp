#include "heed/onednn/softmax.h"

#include <map>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <tuple>

#include "heed/common/check.h"
#include "heed/onednn/internal.h"
#include "heed/onednn/plan_cache.h"

namespace heed::onednn {
namespace {

enum class Op { kSoftmax, kLogSoftmax, kExp, kTanh };

struct Plan {
  dnnl::primitive primitive;
  dnnl::memory src;
  dnnl::memory dst;
};

Plan make_plan(Op op, int64_t rows, int64_t cols) {
  using dnnl::memory;
  const memory::desc md({rows, cols}, memory::data_type::f32, memory::format_tag::ab);
  Plan plan{dnnl::primitive(), memory(md, detail::engine(), nullptr),
            memory(md, detail::engine(), nullptr)};
  const auto prop = dnnl::prop_kind::forward_inference;
  switch (op) {
    case Op::kSoftmax:
      plan.primitive = dnnl::softmax_forward(dnnl::softmax_forward::primitive_desc(
          dnnl::softmax_forward::desc(prop, md, 1), detail::engine()));
      break;
    case Op::kLogSoftmax:
      plan.primitive = dnnl::logsoftmax_forward(dnnl::logsoftmax_forward::primitive_desc(
          dnnl::logsoftmax_forward::desc(prop, md, 1), detail::engine()));
      break;
    case Op::kExp:
    case Op::kTanh:
      plan.primitive = dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(
          dnnl::eltwise_forward::desc(
              prop, op == Op::kExp ? dnnl::algorithm::eltwise_exp : dnnl::algorithm::eltwise_tanh,
              md, 0.f, 0.f),
          detail::engine()));
      break;
  }
  return plan;
}

void run(Op op, const char* where, const tensor::Tensor& x, tensor::Tensor& y) {
  HEED_CHECK(x.numel() == y.numel(), std::string(where) + ": shapes differ");
  if (x.numel() == 0) return;
  const int64_t cols = op == Op::kExp || op == Op::kTanh ? x.numel() : x.dim(x.rank() - 1);
  const int64_t rows = x.numel() / cols;
  static std::mutex mutex;
  // Bounded (plan_cache.h): every (op, rows, cols) seen would otherwise stay.
  static detail::PlanCache<std::tuple<int, int64_t, int64_t>, Plan, detail::TupleHash> plans(512);
  std::lock_guard<std::mutex> lock(mutex);
  detail::guarded(where, [&] {
    Plan& plan = plans.get(std::make_tuple(static_cast<int>(op), rows, cols),
                           [&] { return make_plan(op, rows, cols); });
    detail::point(plan.src, x.data());
    detail::point(plan.dst, y.data());
    plan.primitive.execute(detail::stream(), {{DNNL_ARG_SRC, plan.src}, {DNNL_ARG_DST, plan.dst}});
    detail::stream().wait();
  });
}

}  // namespace

void log_softmax(const tensor::Tensor& x, tensor::Tensor& y) {
  run(Op::kLogSoftmax, "log_softmax", x, y);
}

void softmax(const tensor::Tensor& x, tensor::Tensor& y) {
  run(Op::kSoftmax, "softmax", x, y);
}

void exp(const tensor::Tensor& x, tensor::Tensor& y) {
  run(Op::kExp, "exp", x, y);
}

void tanh(const tensor::Tensor& x, tensor::Tensor& y) {
  run(Op::kTanh, "tanh", x, y);
}

}  // namespace heed::onednn
