// The FLOP counts each mechanism states (registry.h AttentionFlops, the FLOPs column of
// docs/attention.md), checked against counts worked by hand on small shapes: 2 FLOPs per
// multiply-add (MAC) of every matrix product, element-wise work not counted. Every registered
// mechanism states one, and all steps at once cost what the same steps one at a time cost.
#include <catch2/catch.hpp>
#include <string>

#include "heed/attention/registry.h"
#include "support/tested_attentions.h"

using heed::attention::AttentionConfig;
using heed::attention::AttentionFlops;
using heed::attention::AttentionShape;

namespace {

AttentionConfig sizes(int64_t q, int64_t k, int64_t a = 0) {
  AttentionConfig config;
  config.query_size = q;
  config.key_size = k;
  config.attention_dim = a;
  return config;
}

AttentionFlops flops(const std::string& name, const AttentionShape& shape,
                     const AttentionConfig& config) {
  return heed::attention::attention_flops(name, shape, config);
}

void check(const AttentionFlops& got, double precompute, double forward, double backward,
           double precompute_backward) {
  CHECK(got.precompute == precompute);
  CHECK(got.forward == forward);
  CHECK(got.backward == backward);
  CHECK(got.precompute_backward == precompute_backward);
}

// N = 2 sentences of S = 3 positions, one query each (a decoder step).
const AttentionShape kStep{2, 3, 1};

}  // namespace

TEST_CASE("dot-product mechanisms count scores and context", "[attention][fast]") {
  // Q = K = 4. Scores 2 rows × 3 positions × 4 = 24 MACs, context the same: 48 MACs = 96.
  // Backward: d weights, d values, d query, d keys, 24 MACs each = 192.
  for (const char* name : {"dot", "scaled-dot"}) {
    INFO(name);
    check(flops(name, kStep, sizes(4, 4)), 0, 96, 192, 0);
  }
  // scaled-dot --learn-temperature: τ's gradient Σ dq' ⊙ q' is one dot product per query,
  // 2 × 4 = 8 MACs = 16 in the backward (scaling the query is not counted).
  AttentionConfig temperature = sizes(4, 4);
  temperature.options["learn-temperature"] = 1;
  check(flops("scaled-dot", kStep, temperature), 0, 96, 192 + 16, 0);
  // cosine adds ‖h_s‖ once per batch (2·3·4 = 24 MACs = 48) and ‖q‖ per query (2·4 = 8 MACs
  // = 16), and one dot product in each unit vector's backward (the same counts again).
  check(flops("cosine", kStep, sizes(4, 4)), 48, 96 + 16, 192 + 16, 48);
}

TEST_CASE("general precomputes W_a h_s and then costs a product with it", "[attention][fast]") {
  // Q = 4, K = 6. W_a h_s: 2·3 rows × 6 × 4 = 144 MACs = 288, backward twice that.
  // Per query: scores 2·3·4 = 24 MACs, context 2·3·6 = 36 MACs: 60 MACs = 120; backward 240.
  for (const char* name : {"general", "scaled-general"}) {
    INFO(name);
    check(flops(name, kStep, sizes(4, 6)), 288, 120, 240, 576);
  }
  // --identity-init only changes where W_a starts (Q = K here).
  AttentionConfig identity = sizes(6, 6);
  identity.options["identity-init"] = 1;
  check(flops("general", kStep, identity), 432, 144, 288, 864);
  // location: the same product, with S rows of its own W_a [P, Q] instead of W_a h_s.
  check(flops("location", kStep, sizes(4, 6)), 0, 120, 240, 0);
}

TEST_CASE("additive and coverage count their projections and v", "[attention][fast]") {
  // Q = 4, K = 6, A = 5. U h_s: 2·3 × 6 × 5 = 180 MACs = 360 (backward 720). Per query:
  // W q 2 × 4 × 5 = 40, vᵀ tanh at 2·3 positions × 5 = 30, context 2·3·6 = 36: 106 MACs = 212.
  // Backward: W q's two gradients 80, dv 30, the context's two 72: 182 MACs = 364.
  for (const char* name : {"additive", "normed-additive"}) {
    INFO(name);
    check(flops(name, kStep, sizes(4, 6, 5)), 360, 212, 364, 720);
  }
  // coverage: w_c·cov at 2·3 positions × 5 = 30 MACs more; backward dw_c and d cov, 60 more.
  check(flops("coverage", kStep, sizes(4, 6, 5)), 360, 212 + 60, 364 + 120, 720);
}

TEST_CASE("local attention costs its window whatever the source length", "[attention][fast]") {
  // Q = 4, K = 6, D = 1: windows of 3 positions. S = 10: W_a h_s 2·10 × 6 × 4 = 480 MACs = 960.
  // Per query: 2 rows × 3 positions × (4 + 6) = 60 MACs = 120; backward 240.
  AttentionConfig config = sizes(4, 6, 5);
  config.options["window"] = 1;
  check(flops("local-m", AttentionShape{2, 10, 1}, config), 960, 120, 240, 1920);
  // Twice the source: twice the precomputation, the same steps.
  check(flops("local-m", AttentionShape{2, 20, 1}, config), 1920, 120, 240, 3840);
  // A window wider than the sentence is cut to it: S = 2 → 2 rows × 2 × 10 = 40 MACs = 80.
  CHECK(flops("local-m", AttentionShape{2, 2, 1}, config).forward == 80);
  // local-p predicts the centre: W_p q 2 × 4 × 5 = 40 MACs, v_pᵀ 2 × 5 = 10: 50 MACs = 100;
  // backward W_p's two gradients 80 and dv_p 10: 90 MACs = 180.
  check(flops("local-p", AttentionShape{2, 10, 1}, config), 960, 120 + 100, 240 + 180, 1920);
}

TEST_CASE("multi-head counts four projections and the heads", "[attention][fast]") {
  // Q = 4, K = 6, A = 8, 2 heads of 4; N = 1, S = 3. W_k h_s and W_v h_s: 2 × 3 × 6 × 8 =
  // 288 MACs = 576 (backward 1152). Per query: W_q q 4 × 8 = 32, W_o 8 × 8 = 64, scores and
  // context 2 heads × 3 positions × 4 = 24 each: 144 MACs = 288; backward twice that.
  AttentionConfig config = sizes(4, 6, 8);
  config.options["heads"] = 2;
  check(flops("multi-head", AttentionShape{1, 3, 1}, config), 576, 288, 576, 1152);
  // --scale-scores 0 drops a scaling, which is not counted; one head: scores and context over
  // all 8 columns, 3 × 8 = 24 MACs each, the same 144 MACs per query.
  config.options["heads"] = 1;
  config.options["scale-scores"] = 0;
  check(flops("multi-head", AttentionShape{1, 3, 1}, config), 576, 288, 576, 1152);
}

TEST_CASE("linear and ff-pool do their sums over the source once", "[attention][fast]") {
  // linear, K = 4, N = 2, S = 3, Tq = 2 (4 query rows). Z: 2·3 × 4 × 4 = 96 MACs = 192,
  // backward 384. Per query row φ(q)ᵀ Z 16 and φ(q)·z 4: 4 × 20 = 80 MACs = 160. Backward
  // per row d φ(q) 16, d Z 16, d c·c 4, d z 4, d φ(q)'s z 4: 4 × 44 = 176 MACs = 352.
  check(flops("linear", AttentionShape{2, 3, 2}, sizes(4, 4)), 192, 160, 352, 384);
  // ff-pool, K = 4: wᵀ h_s and Σ α_s h_s, 2·3·4 = 24 MACs each = 96; backward d α, dw and two
  // paths to the keys = 192. A step only copies.
  check(flops("ff-pool", kStep, sizes(4, 4)), 96, 0, 0, 192);
  check(flops("none", kStep, sizes(4, 4)), 0, 0, 0, 0);
}

TEST_CASE("every mechanism states FLOPs, linear in the queries", "[attention][fast]") {
  for (const heed::test::TestedAttention& tested : heed::test::tested_attentions()) {
    const std::string& name = tested.name;
    INFO(tested.label());
    REQUIRE(heed::attention::attention_info(name).flops);
    AttentionConfig config = sizes(8, 8, 8);
    config.options = tested.options;
    const AttentionFlops step = flops(name, AttentionShape{3, 12, 1}, config);
    const AttentionFlops all = flops(name, AttentionShape{3, 12, 7}, config);
    CHECK(all.forward == 7 * step.forward);
    CHECK(all.backward == 7 * step.backward);
    CHECK(all.precompute == step.precompute);
    CHECK(all.precompute_backward == step.precompute_backward);
    if (name != "none") CHECK(step.precompute + step.forward > 0);
  }
}
