#include "heed/onednn/memory.h"

#include <cstring>
#include <map>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <tuple>

#include "heed/common/check.h"
#include "heed/onednn/internal.h"
#include "heed/onednn/plan_cache.h"

namespace heed::onednn {
namespace detail {
namespace {

struct ConvertPlan {
  dnnl::reorder primitive;
  dnnl::memory src;
  dnnl::memory dst;
};

}  // namespace

void convert(const void* src, dnnl::memory::data_type src_type, void* dst,
             dnnl::memory::data_type dst_type, int64_t n) {
  if (n == 0) return;
  if (src_type == dst_type) {
    const size_t size = src_type == dnnl::memory::data_type::f32 ? 4 : 2;
    if (src != dst) std::memmove(dst, src, static_cast<size_t>(n) * size);
    return;
  }
  static std::mutex mutex;
  // Bounded (plan_cache.h): one plan per element count seen.
  static PlanCache<std::tuple<int64_t, int, int>, ConvertPlan, TupleHash> plans(512);
  std::lock_guard<std::mutex> lock(mutex);
  guarded("convert", [&] {
    const auto make = [&] {
      const dnnl::memory::desc src_md({n}, src_type, dnnl::memory::format_tag::a);
      const dnnl::memory::desc dst_md({n}, dst_type, dnnl::memory::format_tag::a);
      ConvertPlan plan{dnnl::reorder(), dnnl::memory(src_md, engine(), nullptr),
                       dnnl::memory(dst_md, engine(), nullptr)};
      plan.primitive = dnnl::reorder(dnnl::reorder::primitive_desc(plan.src, plan.dst));
      return plan;
    };
    ConvertPlan& plan =
        plans.get(std::make_tuple(n, static_cast<int>(src_type), static_cast<int>(dst_type)), make);
    point(plan.src, src);
    point(plan.dst, dst);
    plan.primitive.execute(stream(), plan.src, plan.dst);
    stream().wait();
  });
}

}  // namespace detail

void convert(const tensor::Tensor& src, tensor::Tensor& dst) {
  HEED_CHECK(src.numel() == dst.numel(),
             "convert " + src.shape().to_string() + " into " + dst.shape().to_string());
  detail::convert(src.raw(), detail::to_dnnl(src.dtype()), dst.raw(), detail::to_dnnl(dst.dtype()),
                  src.numel());
}

}  // namespace heed::onednn
