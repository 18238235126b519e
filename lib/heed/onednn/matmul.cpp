#include "heed/onednn/matmul.h"

#include <array>
#include <cstring>
#include <iterator>
#include <list>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "heed/common/check.h"
#include "heed/onednn/context.h"
#include "heed/onednn/internal.h"
#include "heed/onednn/pack_bf16.h"
#include "heed/onednn/plan_cache.h"

namespace heed::onednn {

using dnnl::memory;
using tensor::DType;
using tensor::Shape;
using tensor::Tensor;

MatrixRef MatrixRef::of(const Tensor& t) {
  HEED_CHECK(t.rank() == 2 || t.rank() == 3,
             "MatrixRef::of needs rank 2 or 3, got " + t.shape().to_string());
  MatrixRef m;
  m.data = const_cast<void*>(t.raw());
  m.dtype = t.dtype();
  m.batch = t.rank() == 3 ? t.dim(0) : 1;
  m.rows = t.dim(-2);
  m.cols = t.dim(-1);
  m.batch_stride = m.batch > 1 ? m.rows * m.cols : 0;
  m.row_stride = m.cols;
  m.col_stride = 1;
  return m;
}

MatrixRef MatrixRef::rows_of(const Tensor& t) {
  HEED_CHECK(t.rank() >= 1, "MatrixRef::rows_of a rank-0 tensor");
  MatrixRef m;
  m.data = const_cast<void*>(t.raw());
  m.dtype = t.dtype();
  m.cols = t.dim(-1);
  m.rows = m.cols == 0 ? 0 : t.numel() / m.cols;
  m.row_stride = m.cols;
  return m;
}

MatrixRef MatrixRef::time_major(const Tensor& t) {
  HEED_CHECK(t.rank() == 3, "MatrixRef::time_major needs [T, N, C], got " + t.shape().to_string());
  MatrixRef m;
  m.data = const_cast<void*>(t.raw());
  m.dtype = t.dtype();
  m.batch = t.dim(1);
  m.rows = t.dim(0);
  m.cols = t.dim(2);
  m.batch_stride = m.cols;
  m.row_stride = t.dim(1) * t.dim(2);
  m.col_stride = 1;
  return m;
}

MatrixRef MatrixRef::transposed() const {
  MatrixRef m = *this;
  std::swap(m.rows, m.cols);
  std::swap(m.row_stride, m.col_stride);
  return m;
}

namespace {

constexpr int kKeySize = 32;
using Key = std::array<int64_t, kKeySize>;

// Plans one MatMul keeps (a Linear sees one shape per row count; attention one per rows × source
// length): enough for a training run's shapes, bounded for an endless stream.
constexpr size_t kMaxPlans = 64;
// Packed copies of constant operands one MatMul keeps: a weight needs one or two layouts, the
// keys of attention one per batch shape in use.
constexpr size_t kMaxPacked = 8;
// Packed copies kept (their buffers, to be packed again) when the constant operands change.
constexpr size_t kKeptOnChange = 2;

struct KeyHash {
  size_t operator()(const Key& key) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t v : key) {
      h ^= static_cast<uint64_t>(v);
      h *= 1099511628211ull;
    }
    return static_cast<size_t>(h);
  }
};

int put(Key& key, int at, const MatrixRef& m) {
  key[static_cast<size_t>(at++)] = static_cast<int64_t>(m.dtype);
  key[static_cast<size_t>(at++)] = m.batch;
  key[static_cast<size_t>(at++)] = m.rows;
  key[static_cast<size_t>(at++)] = m.cols;
  key[static_cast<size_t>(at++)] = m.batch > 1 ? m.batch_stride : 0;
  key[static_cast<size_t>(at++)] = m.row_stride;
  key[static_cast<size_t>(at++)] = m.col_stride;
  return at;
}

// The memory descriptor of a view: 2-D when rank3 is false (batch must then be 1).
memory::desc view_desc(const MatrixRef& m, bool rank3) {
  if (!rank3) {
    return memory::desc({m.rows, m.cols}, detail::to_dnnl(m.dtype), {m.row_stride, m.col_stride});
  }
  const int64_t bs = m.batch > 1 ? m.batch_stride : m.rows * m.cols;
  return memory::desc({m.batch, m.rows, m.cols}, detail::to_dnnl(m.dtype),
                      {bs, m.row_stride, m.col_stride});
}

memory::desc dense_desc(const MatrixRef& m, memory::data_type type, bool rank3) {
  if (!rank3) return memory::desc({m.rows, m.cols}, type, memory::format_tag::ab);
  return memory::desc({m.batch, m.rows, m.cols}, type, memory::format_tag::abc);
}

}  // namespace

// f32 A operands up to this many elements are converted to bf16 by heed's loop, not oneDNN's
// reorder (MatMul::run).
constexpr int64_t kSmallConversion = int64_t(1) << 16;

struct MatMul::Impl {
  struct Plan {
    dnnl::matmul primitive;
    memory a_user, b_user, c_user, bias, addend, scratch;
    // bf16 conversions of f32 operands (kBF16 precision only).
    bool convert_a = false;
    bool convert_b = false;
    dnnl::reorder a_reorder, b_reorder;
    memory a_conv, b_conv;
    // Constant B reordered into the primitive's preferred layout (an entry of `packed`, found
    // by these two descriptors at each run: it may have been evicted and packed again).
    bool constant_b = false;
    memory::desc packed_source_desc, packed_desc;
    int addend_arg = 0;
    std::unordered_map<int, memory> args;
  };

  // A packed copy of a constant B, shared by every plan whose primitive wants the same layout
  // (e.g. one Linear weight used with many row counts M): packed once per version. Attention's
  // keys make one layout per (rows, source length): the copies are bounded like the plans.
  struct Packed {
    memory::desc source_desc;
    memory::desc desc;
    Tensor buffer;  // the packed bytes
    memory mem;
    bool own_pack = false;  // packed by detail::pack_ba16a64b2a, not by the reorder
    dnnl::reorder reorder;
    memory source;
    const void* source_data = nullptr;
    uint64_t version = ~0ull;
  };

  Precision precision;
  uint64_t version = 0;
  detail::PlanCache<Key, Plan, KeyHash> plans{kMaxPlans};
  std::list<Packed> packed;  // most recently used first, at most kMaxPacked
  size_t packs_made = 0;
  // bf16 conversions of f32 operands, shared by all plans (grown to the largest use).
  Tensor a_scratch, b_scratch;
  // The primitives' scratchpad (scratchpad_mode::user), grown to the largest use: in oneDNN's
  // own mode every execution allocates one of its shape's size, and a stream of ever new shapes
  // fragments the heap (issue 29).
  Tensor scratchpad;

  Packed& packed_for(const memory::desc& source_desc, const memory::desc& desc,
                     const MatrixRef& b) {
    if (Packed* found = detail::find_most_recent(packed, [&](const Packed& p) {
          return p.desc == desc && p.source_desc == source_desc;
        })) {
      return *found;
    }
    // The evicted copy's buffer is reused (it only grows): keys of a new shape at every batch
    // would otherwise fragment the heap (a stream's resident memory kept growing).
    Packed p;
    // A stale copy's buffer first (its operand changed since it was packed), else the least
    // recently used one's when the list is full.
    auto reused = packed.end();
    for (auto it = packed.begin(); it != packed.end(); ++it) {
      if (it->version != version) reused = it;
    }
    if (reused == packed.end() && packed.size() >= kMaxPacked) reused = std::prev(packed.end());
    if (reused != packed.end()) {
      p.buffer = std::move(reused->buffer);
      packed.erase(reused);
    }
    p.source_desc = source_desc;
    p.desc = desc;
    p.buffer.resize(Shape({static_cast<int64_t>((desc.get_size() + 3) / 4)}));
    p.mem = memory(desc, detail::engine(), p.buffer.raw());
    p.source = memory(source_desc, detail::engine(), nullptr);
    p.own_pack = b.batch == 1 && b.dtype == DType::kF32 &&
                 desc == memory::desc({b.rows, b.cols}, memory::data_type::bf16,
                                      memory::format_tag::BA16a64b2a);
    if (!p.own_pack) p.reorder = dnnl::reorder(dnnl::reorder::primitive_desc(p.source, p.mem));
    packed.push_front(std::move(p));
    ++packs_made;
    return packed.front();
  }

  Plan& plan_for(const Key& key, const MatrixRef& a, const MatrixRef& b, const MatrixRef& c,
                 const MatMulOptions& options) {
    return plans.get(key, [&] { return make_plan(a, b, c, options); });
  }
  Plan make_plan(const MatrixRef& a, const MatrixRef& b, const MatrixRef& c,
                 const MatMulOptions& options);
};

MatMul::MatMul(Precision precision) : impl_(std::make_unique<Impl>()) {
  require_precision(precision, "matmul");
  impl_->precision = precision;
}

MatMul::~MatMul() = default;
MatMul::MatMul(MatMul&&) noexcept = default;
MatMul& MatMul::operator=(MatMul&&) noexcept = default;

Precision MatMul::precision() const {
  return impl_->precision;
}
size_t MatMul::plan_count() const {
  return impl_->plans.size();
}
size_t MatMul::packs_made() const {
  return impl_->packs_made;
}

size_t MatMul::packed_count() const {
  return impl_->packed.size();
}

void MatMul::weights_changed() {
  ++impl_->version;
  // Every copy is stale now. A weight's one or two layouts are packed again in their buffers;
  // attention's keys change at every step of a beam search (select()), each step's copies are
  // worthless after it, and kMaxPacked of them (one per row count) held 200 MB of
  // heed-translate's peak (beam 5, batch 64; heaptrack): keep two buffers to reuse.
  while (impl_->packed.size() > kKeptOnChange) impl_->packed.pop_back();
}

MatMul::Impl::Plan MatMul::Impl::make_plan(const MatrixRef& a, const MatrixRef& b,
                                           const MatrixRef& c, const MatMulOptions& options) {
  const dnnl::engine& eng = detail::engine();
  const bool rank3 = a.batch > 1 || b.batch > 1 || c.batch > 1;
  const memory::data_type compute =
      precision == Precision::kBF16 ? memory::data_type::bf16 : memory::data_type::f32;
  Plan plan;
  plan.constant_b = options.constant_b;

  const memory::desc a_user_md = view_desc(a, rank3);
  const memory::desc b_user_md = view_desc(b, rank3);
  const memory::desc c_md = view_desc(c, rank3);
  plan.convert_a = detail::to_dnnl(a.dtype) != compute;
  plan.convert_b = !plan.constant_b && detail::to_dnnl(b.dtype) != compute;
  const memory::desc a_md = plan.convert_a ? dense_desc(a, compute, rank3) : a_user_md;
  memory::desc b_md = plan.convert_b ? dense_desc(b, compute, rank3) : b_user_md;
  if (plan.constant_b) {
    b_md = rank3 ? memory::desc({b.batch, b.rows, b.cols}, compute, memory::format_tag::any)
                 : memory::desc({b.rows, b.cols}, compute, memory::format_tag::any);
  }

  dnnl::post_ops ops;
  int index = 0;
  if (options.accumulate) {
    ops.append_sum(1.f);
    ++index;
  }
  memory::desc addend_md;
  if (options.addend != nullptr) {
    addend_md =
        rank3 ? memory::desc({c.batch, 1, c.cols}, memory::data_type::f32, memory::format_tag::abc)
              : memory::desc({1, c.cols}, memory::data_type::f32, memory::format_tag::ab);
    ops.append_binary(dnnl::algorithm::binary_add, addend_md);
    plan.addend_arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1;
    ++index;
  }
  if (options.activation == Activation::kTanh) {
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_tanh, 0.f, 0.f);
    ++index;
  }
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // Impl::scratchpad, see there
  if (index > 0) attr.set_post_ops(ops);
  if (options.alpha != 1.f) attr.set_output_scales(0, {options.alpha});

  memory::desc bias_md;
  if (options.bias != nullptr) {
    bias_md = rank3 ? memory::desc({1, 1, c.cols}, memory::data_type::f32, memory::format_tag::abc)
                    : memory::desc({1, c.cols}, memory::data_type::f32, memory::format_tag::ab);
  }
  const dnnl::matmul::desc desc = options.bias != nullptr
                                      ? dnnl::matmul::desc(a_md, b_md, bias_md, c_md)
                                      : dnnl::matmul::desc(a_md, b_md, c_md);
  const dnnl::matmul::primitive_desc pd(desc, attr, eng);
  plan.scratch = memory(pd.scratchpad_desc(), eng, nullptr);
  plan.args[DNNL_ARG_SCRATCHPAD] = plan.scratch;
  plan.primitive = dnnl::matmul(pd);

  plan.a_user = memory(a_user_md, eng, nullptr);
  plan.b_user = memory(b_user_md, eng, nullptr);
  plan.c_user = memory(c_md, eng, nullptr);
  plan.args[DNNL_ARG_DST] = plan.c_user;
  if (plan.convert_a) {
    plan.a_conv = memory(a_md, eng, nullptr);
    plan.a_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(plan.a_user, plan.a_conv));
    plan.args[DNNL_ARG_SRC] = plan.a_conv;
  } else {
    plan.args[DNNL_ARG_SRC] = plan.a_user;
  }
  if (plan.constant_b) {
    plan.packed_source_desc = b_user_md;
    plan.packed_desc = pd.weights_desc();
  } else if (plan.convert_b) {
    plan.b_conv = memory(b_md, eng, nullptr);
    plan.b_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(plan.b_user, plan.b_conv));
    plan.args[DNNL_ARG_WEIGHTS] = plan.b_conv;
  } else {
    plan.args[DNNL_ARG_WEIGHTS] = plan.b_user;
  }
  if (options.bias != nullptr) {
    plan.bias = memory(bias_md, eng, nullptr);
    plan.args[DNNL_ARG_BIAS] = plan.bias;
  }
  if (options.addend != nullptr) {
    plan.addend = memory(addend_md, eng, nullptr);
    plan.args[plan.addend_arg] = plan.addend;
  }
  return plan;
}

void MatMul::run(const MatrixRef& a, const MatrixRef& b, const MatrixRef& c,
                 const MatMulOptions& options) {
  const auto describe = [&] {
    const auto one = [](const MatrixRef& m) {
      return std::to_string(m.batch) + "x[" + std::to_string(m.rows) + "," +
             std::to_string(m.cols) + "]";
    };
    return one(a) + " · " + one(b) + " → " + one(c);
  };
  HEED_CHECK(a.cols == b.rows && a.rows == c.rows && b.cols == c.cols,
             "matmul shapes " + describe());
  HEED_CHECK(a.batch == c.batch && (b.batch == c.batch || b.batch == 1),
             "matmul batches " + describe());
  HEED_CHECK(c.dtype == DType::kF32 || impl_->precision == Precision::kBF16,
             "matmul: bf16 output needs bf16 precision");
  HEED_CHECK(
      impl_->precision == Precision::kBF16 || (a.dtype == DType::kF32 && b.dtype == DType::kF32),
      "matmul: bf16 operands need bf16 precision");
  HEED_CHECK(options.bias == nullptr || options.alpha == 1.f, "matmul: alpha with bias");
  HEED_CHECK(options.bias == nullptr || options.bias->numel() == c.cols,
             "matmul: bias of " + std::to_string(c.cols) + " expected");
  HEED_CHECK(options.addend == nullptr || options.addend->numel() == c.batch * c.cols,
             "matmul: addend of [" + std::to_string(c.batch) + ", " + std::to_string(c.cols) +
                 "] expected");
  if (a.rows == 0 || c.cols == 0 || a.batch == 0) return;

  Key key{};
  int at = 0;
  key[static_cast<size_t>(at++)] = static_cast<int64_t>(impl_->precision);
  at = put(key, at, a);
  at = put(key, at, b);
  at = put(key, at, c);
  float alpha = options.alpha;
  int32_t alpha_bits;
  std::memcpy(&alpha_bits, &alpha, sizeof alpha_bits);
  key[static_cast<size_t>(at++)] = alpha_bits;
  key[static_cast<size_t>(at++)] = (options.accumulate ? 1 : 0) | (options.bias ? 2 : 0) |
                                   (options.addend ? 4 : 0) | (options.constant_b ? 8 : 0) |
                                   (options.activation == Activation::kTanh ? 16 : 0);

  detail::guarded("matmul", [&] {
    Impl::Plan& plan = impl_->plan_for(key, a, b, c, options);
    dnnl::stream& strm = detail::stream();
    detail::point(plan.a_user, a.data);
    detail::point(plan.b_user, b.data);
    detail::point(plan.c_user, c.data);
    if (plan.convert_a) {
      impl_->a_scratch.resize(Shape({static_cast<int64_t>(plan.a_conv.get_desc().get_size() / 2)}),
                              DType::kBF16);
      detail::point(plan.a_conv, impl_->a_scratch.raw());
      if (a.batch == 1 && a.col_stride == 1 && a.rows * a.cols <= kSmallConversion) {
        // A decoder step's operand (64 × 512): converted here, row by row, in a few
        // microseconds; oneDNN's reorder took 50-60 (its threads' start and barrier).
        auto* to = static_cast<uint16_t*>(impl_->a_scratch.raw());
        const auto* from = static_cast<const float*>(a.data);
        for (int64_t r = 0; r < a.rows; ++r) {
          tensor::float_to_bf16(from + r * a.row_stride, to + r * a.cols, a.cols);
        }
      } else {
        plan.a_reorder.execute(strm, plan.a_user, plan.a_conv);
      }
    }
    if (plan.constant_b) {
      Impl::Packed& p = impl_->packed_for(plan.packed_source_desc, plan.packed_desc, b);
      plan.args[DNNL_ARG_WEIGHTS] = p.mem;
      if (p.version != impl_->version || p.source_data != b.data) {
        if (p.own_pack) {
          detail::pack_ba16a64b2a(static_cast<const float*>(b.data), b.rows, b.cols, b.row_stride,
                                  b.col_stride, static_cast<uint16_t*>(p.buffer.raw()));
        } else {
          detail::point(p.source, b.data);
          p.reorder.execute(strm, p.source, p.mem);
        }
        p.version = impl_->version;
        p.source_data = b.data;
      }
    } else if (plan.convert_b) {
      impl_->b_scratch.resize(Shape({static_cast<int64_t>(plan.b_conv.get_desc().get_size() / 2)}),
                              DType::kBF16);
      detail::point(plan.b_conv, impl_->b_scratch.raw());
      plan.b_reorder.execute(strm, plan.b_user, plan.b_conv);
    }
    if (const size_t bytes = plan.scratch.get_desc().get_size(); bytes > 0) {
      if (impl_->scratchpad.bytes() < bytes) {
        impl_->scratchpad.resize(Shape({static_cast<int64_t>((bytes + 3) / 4)}));
      }
      detail::point(plan.scratch, impl_->scratchpad.raw());
    }
    if (options.bias != nullptr) detail::point(plan.bias, options.bias->data());
    if (options.addend != nullptr) detail::point(plan.addend, options.addend->data());
    plan.primitive.execute(strm, plan.args);
    strm.wait();
    // The plan must not keep the packed copy alive once packed_for has let it go.
    if (plan.constant_b) plan.args.erase(DNNL_ARG_WEIGHTS);
  });
}

}  // namespace heed::onednn
