// The whole encoder-decoder: finite-difference gradients of the loss for every attention
// mechanism (and each of its on/off options, support/tested_attentions.h) × decoder × cell, the
// Luong and concat fast paths against stepping, and exactness of a sentence alone versus padded
// in a batch.
#include "heed/model/seq2seq.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "heed/attention/registry.h"
#include "heed/common/error.h"
#include "heed/onednn/context.h"
#include "heed/tensor/tensor_ops.h"
#include "support/gradcheck.h"
#include "support/tested_attentions.h"

using heed::model::Batch;
using heed::model::LossOptions;
using heed::model::ModelConfig;
using heed::model::Seq2Seq;

namespace {

ModelConfig tiny_config(const std::string& attention, heed::model::DecoderType decoder,
                        bool feeding, heed::model::CellType cell,
                        const heed::attention::OptionValues& options = {}) {
  ModelConfig c;
  c.attention = attention;
  c.attention_options = options;
  c.decoder = decoder;
  c.input_feeding = feeding;
  c.cell = cell;
  c.embed = 5;
  c.hidden = 6;
  c.attention_dim = 4;
  c.dropout = 0.f;
  c.src_vocab_size = 11;
  c.tgt_vocab_size = 9;
  return c;
}

// Sentences with the given lengths (targets without </s>), random ids ≥ 4.
Batch make_batch(const std::vector<int64_t>& src_lengths, const std::vector<int64_t>& tgt_words,
                 int src_vocab, int tgt_vocab, uint64_t seed) {
  heed::Rng rng = heed::make_rng(seed, 9);
  Batch b;
  b.size = static_cast<int64_t>(src_lengths.size());
  b.src_lengths = src_lengths;
  for (int64_t w : tgt_words) b.tgt_lengths.push_back(w + 1);
  for (int64_t l : b.src_lengths) b.src_len = std::max(b.src_len, l);
  for (int64_t l : b.tgt_lengths) b.tgt_len = std::max(b.tgt_len, l);
  b.src.assign(size_t(b.size * b.src_len), 0);
  b.tgt_in.assign(size_t(b.size * b.tgt_len), 0);
  b.tgt_out.assign(size_t(b.size * b.tgt_len), 0);
  for (int64_t n = 0; n < b.size; ++n) {
    for (int64_t s = 0; s < b.src_lengths[size_t(n)]; ++s) {
      b.src[size_t(n * b.src_len + s)] = int32_t(4 + rng() % uint64_t(src_vocab - 4));
    }
    const int64_t len = b.tgt_lengths[size_t(n)];
    for (int64_t t = 0; t < len; ++t) {
      const int32_t y = t + 1 < len ? int32_t(4 + rng() % uint64_t(tgt_vocab - 4)) : 3;
      b.tgt_out[size_t(n * b.tgt_len + t)] = y;
      b.tgt_in[size_t(n * b.tgt_len + t)] = t == 0 ? 2 : b.tgt_out[size_t(n * b.tgt_len + t - 1)];
    }
  }
  return b;
}

// One sentence of a batch as a batch of its own.
Batch single(const Batch& b, int64_t n) {
  Batch s;
  s.size = 1;
  s.src_len = b.src_lengths[size_t(n)];
  s.tgt_len = b.tgt_lengths[size_t(n)];
  s.src_lengths = {s.src_len};
  s.tgt_lengths = {s.tgt_len};
  s.src.assign(b.src.begin() + n * b.src_len, b.src.begin() + n * b.src_len + s.src_len);
  s.tgt_in.assign(b.tgt_in.begin() + n * b.tgt_len, b.tgt_in.begin() + n * b.tgt_len + s.tgt_len);
  s.tgt_out.assign(b.tgt_out.begin() + n * b.tgt_len,
                   b.tgt_out.begin() + n * b.tgt_len + s.tgt_len);
  return s;
}

std::vector<std::vector<float>> gradients(Seq2Seq& model) {
  std::vector<std::vector<float>> g;
  for (const auto* p : model.parameters().all()) g.push_back(p->grad.to_vector());
  return g;
}

double eval_loss(Seq2Seq& model, const Batch& batch, float guide_weight = 0.f) {
  LossOptions eval;
  eval.training = false;
  eval.backward = false;
  eval.label_smoothing = 0.1f;
  eval.guided_alignment_weight = guide_weight;
  heed::Rng rng = heed::make_rng(1);
  const auto sums = model.loss(batch, eval, rng);
  return sums.loss / double(sums.tokens);
}

// The model's gradients (computed by the caller) against finite differences of loss() over
// sampled coordinates of every parameter.
heed::test::GradCheckResult check_against(Seq2Seq& model, const std::function<double()>& loss) {
  std::vector<heed::test::GradParam> params;
  for (auto* p : model.parameters().all()) {
    params.push_back(heed::test::grad_param(p->name, p->value, p->grad));
  }
  heed::test::GradCheckOptions options;
  options.max_coords = 6;
  options.atol = 2e-4;
  options.rtol = 3e-2;
  const auto result = heed::test::gradcheck(
      [&] {
        model.weights_changed();
        return loss();
      },
      params, options);
  model.weights_changed();
  return result;
}

// Analytic gradients of the mean label-smoothed loss (dropout off) against finite differences
// over sampled coordinates of every parameter.
heed::test::GradCheckResult check_loss_gradients(Seq2Seq& model, const Batch& batch, uint64_t seed,
                                                 float guide_weight = 0.f) {
  model.initialize(seed, 0.4f);
  model.parameters().zero_grad();
  LossOptions train;
  train.training = false;
  train.label_smoothing = 0.1f;
  train.guided_alignment_weight = guide_weight;
  heed::Rng rng = heed::make_rng(1);
  model.loss(batch, train, rng);
  return check_against(model, [&] { return eval_loss(model, batch, guide_weight); });
}

struct Variant {
  heed::model::DecoderType decoder;
  bool feeding;
  const char* name;
};

const Variant kVariants[] = {{heed::model::DecoderType::kLuong, true, "luong+feed"},
                             {heed::model::DecoderType::kLuong, false, "luong"},
                             {heed::model::DecoderType::kBahdanau, false, "bahdanau"},
                             {heed::model::DecoderType::kConcat, false, "concat"}};

}  // namespace

TEST_CASE("seq2seq: loss gradients match finite differences for every mechanism and decoder",
          "[model]") {
  heed::onednn::set_threads(1);
  const Batch batch = make_batch({4, 2, 3}, {3, 1, 2}, 11, 9, 3);
  for (const heed::test::TestedAttention& tested : heed::test::tested_attentions()) {
    for (const Variant& v : kVariants) {
      for (auto cell : {heed::model::CellType::kLstm, heed::model::CellType::kGru}) {
        Seq2Seq model(tiny_config(tested.name, v.decoder, v.feeding, cell, tested.options));
        const auto result = check_loss_gradients(model, batch, 7);
        INFO(tested.label() << " " << v.name << " " << heed::model::to_string(cell) << "\n"
                            << result.report);
        CHECK(result.ok);
        CHECK(result.checked > 50);
      }
    }
  }
}

TEST_CASE(
    "seq2seq: deep and unidirectional models, every bridge, sparsemax and tied target embeddings "
    "pass the gradient check",
    "[model]") {
  heed::onednn::set_threads(1);
  const Batch batch = make_batch({3, 5}, {2, 3}, 11, 9, 4);
  using heed::model::BridgeType;
  for (int variant = 0; variant < 12; ++variant) {
    ModelConfig c = tiny_config("general", heed::model::DecoderType::kLuong, true,
                                heed::model::CellType::kLstm);
    if (variant == 0) c.encoder_layers = c.decoder_layers = 2;
    if (variant == 1) c.bidirectional = false;
    if (variant == 2) c.bridge = BridgeType::kZero;
    if (variant == 3) c.bridge = BridgeType::kMean;
    if (variant == 4) c.bridge = BridgeType::kLast;
    if (variant == 5) c.bridge = BridgeType::kFeedForwardPool;
    if (variant == 6) {  // two decoder layers share the pooled state
      c.bridge = BridgeType::kFeedForwardPool;
      c.decoder_layers = 2;
    }
    if (variant == 7) c.attention_normalizer = heed::attention::Normalizer::kSparsemax;
    if (variant == 8 || variant == 9) {  // one matrix embeds and projects: both gradients add up
      c.embed = c.hidden;
      c.tie_target_embeddings = true;
      if (variant == 9) c.decoder = heed::model::DecoderType::kBahdanau;
    }
    if (variant == 10) {  // concat: the output layer reads [c; h], 6 + 6 wide, as do embeddings
      c.decoder = heed::model::DecoderType::kConcat;
      c.embed = 2 * c.hidden;
      c.tie_target_embeddings = true;
    }
    if (variant == 11) {  // concat over two decoder layers and a context of width A = 4
      c.decoder = heed::model::DecoderType::kConcat;
      c.decoder_layers = 2;
      c.attention = "multi-head";
      c.attention_options = {{"heads", 2}};
    }
    Seq2Seq model(c);
    if (c.tie_target_embeddings) {
      CHECK(model.parameters().find("decoder/output/weight") == nullptr);
      CHECK(&model.output() != nullptr);
    }
    if (variant == 11) {
      CHECK(model.decoder().output_size() == 4 + 6);
      CHECK(model.parameters().get("decoder/output/weight").value.shape() ==
            heed::tensor::Shape{9, 4 + 6});
      CHECK(model.parameters().find("decoder/attn_out/weight") == nullptr);
    }
    const auto result = check_loss_gradients(model, batch, 8);
    INFO("variant " << variant << "\n" << result.report);
    CHECK(result.ok);
  }
}

TEST_CASE(
    "seq2seq: with whole-word dropout on both sides (one fixed mask) the gradients match finite "
    "differences, and dropping words changes the loss",
    "[model]") {
  heed::onednn::set_threads(1);
  const Batch batch = make_batch({4, 2, 3}, {3, 1, 2}, 11, 9, 5);
  ModelConfig c =
      tiny_config("general", heed::model::DecoderType::kLuong, true, heed::model::CellType::kLstm);
  c.dropout_src = 0.5f;
  c.dropout_trg = 0.5f;
  Seq2Seq model(c);
  model.initialize(9, 0.4f);
  model.parameters().zero_grad();
  // Training mode with the same stream every time: the same words are dropped in every forward,
  // so the loss is a smooth function of the weights and the check applies.
  auto train_loss = [&](bool backward) {
    LossOptions train;
    train.training = true;
    train.backward = backward;
    train.label_smoothing = 0.1f;
    heed::Rng rng = heed::make_rng(3);
    const auto sums = model.loss(batch, train, rng);
    return sums.loss / double(sums.tokens);
  };
  const double dropped = train_loss(true);
  CHECK(std::fabs(dropped - eval_loss(model, batch)) > 1e-4);
  const auto result = check_against(model, [&] { return train_loss(false); });
  INFO(result.report);
  CHECK(result.ok);
  CHECK(result.checked > 50);
}

// A guide as make_batch() builds it from token links: row t spreads 1 over its linked sources.
void add_guide(Batch& b, const std::vector<std::vector<std::pair<int, int>>>& links) {
  b.guide.assign(size_t(b.size * b.tgt_len * b.src_len), 0.f);
  for (int64_t n = 0; n < b.size; ++n) {
    for (const auto& [s, t] : links[size_t(n)]) {
      int count = 0;
      for (const auto& link : links[size_t(n)]) count += link.second == t;
      b.guide[size_t((n * b.tgt_len + t) * b.src_len + s)] += 1.f / float(count);
    }
  }
}

TEST_CASE("seq2seq: guided alignment passes the gradient check for every mechanism it applies to",
          "[model]") {
  heed::onednn::set_threads(1);
  Batch batch = make_batch({4, 2, 3}, {3, 1, 2}, 11, 9, 3);
  // Sentence 0: target 0 ↔ sources 1 and 2 (half each), target 2 ↔ source 0; sentence 1: none;
  // sentence 2: target 1 ↔ source 2.
  add_guide(batch, {{{1, 0}, {2, 0}, {0, 2}}, {}, {{2, 1}}});
  int checked = 0;
  for (const std::string& attention : heed::attention::attention_names()) {
    const auto traits = heed::attention::attention_info(attention).traits;
    if (!traits.position_weights || !traits.uses_query) continue;
    for (const Variant& v : kVariants) {
      Seq2Seq model(tiny_config(attention, v.decoder, v.feeding, heed::model::CellType::kLstm));
      const auto result = check_loss_gradients(model, batch, 7, 0.5f);
      INFO(attention << " " << v.name << "\n" << result.report);
      CHECK(result.ok);
      ++checked;
    }
  }
  CHECK(checked >= 40);  // 12 mechanisms have per-step weights, × 4 decoders
}

TEST_CASE("seq2seq: the guided-alignment term is weight × Σ guide × −log(attention + 1e-6)",
          "[model][fast]") {
  heed::onednn::set_threads(1);
  Batch batch = make_batch({4, 3}, {2, 3}, 11, 9, 12);
  add_guide(batch, {{{3, 0}, {0, 1}}, {{1, 2}, {2, 2}}});
  Seq2Seq model(
      tiny_config("general", heed::model::DecoderType::kLuong, true, heed::model::CellType::kLstm));
  model.initialize(5, 0.4f);
  LossOptions eval;
  eval.training = false;
  eval.backward = false;
  eval.keep_attention = true;
  heed::Rng rng = heed::make_rng(1);
  const double plain = model.loss(batch, eval, rng).loss;
  const std::vector<float> a = model.attention_weights().to_vector();  // [N, T, S]
  eval.guided_alignment_weight = 0.25f;
  const double guided = model.loss(batch, eval, rng).loss;
  const auto at = [&](int64_t n, int64_t t, int64_t s) {
    return double(a[size_t((n * batch.tgt_len + t) * batch.src_len + s)]);
  };
  const double expected =
      0.25 * (-std::log(at(0, 0, 3) + 1e-6) - std::log(at(0, 1, 0) + 1e-6) -
              0.5 * std::log(at(1, 2, 1) + 1e-6) - 0.5 * std::log(at(1, 2, 2) + 1e-6));
  CHECK(guided - plain == Approx(expected).epsilon(1e-5));
}

TEST_CASE("seq2seq: the Luong and concat fast paths equal stepping", "[model][fast]") {
  heed::onednn::set_threads(1);
  const Batch batch = make_batch({4, 2, 5}, {3, 1, 4}, 11, 9, 5);
  const auto decoder =
      GENERATE(heed::model::DecoderType::kLuong, heed::model::DecoderType::kConcat);
  for (const std::string& attention : heed::attention::attention_names()) {
    Seq2Seq model(tiny_config(attention, decoder, false, heed::model::CellType::kLstm));
    model.initialize(9, 0.4f);
    if (heed::attention::attention_info(attention).traits.stateful) {
      CHECK_FALSE(model.decoder().fast_path());  // state across steps forces stepping
      continue;
    }
    REQUIRE(model.decoder().fast_path());
    LossOptions train;
    train.training = false;
    heed::Rng rng = heed::make_rng(1);
    model.parameters().zero_grad();
    const double fast = model.loss(batch, train, rng).loss;
    const auto fast_grads = gradients(model);
    model.decoder().set_force_stepping(true);
    model.parameters().zero_grad();
    const double stepped = model.loss(batch, train, rng).loss;
    const auto step_grads = gradients(model);
    INFO(attention << " " << heed::model::to_string(decoder));
    CHECK(std::fabs(fast - stepped) < 1e-5 * std::fabs(fast));
    for (size_t i = 0; i < fast_grads.size(); ++i) {
      double err = 0, scale = 1e-4;  // absolute floor: float rounding of near-zero gradients
      for (size_t k = 0; k < fast_grads[i].size(); ++k) {
        err = std::max(err, double(std::fabs(fast_grads[i][k] - step_grads[i][k])));
        scale = std::max(scale, double(std::fabs(fast_grads[i][k])));
      }
      INFO(model.parameters().all()[i]->name);
      CHECK(err / scale < 1e-5);
    }
  }
}

TEST_CASE("seq2seq: a sentence padded in a batch gets exactly its own loss and gradients",
          "[model][fast]") {
  heed::onednn::set_threads(1);
  const Batch batch = make_batch({5, 2, 3}, {2, 4, 1}, 11, 9, 6);
  // coverage: its loss term must leave out the padded target steps too.
  const std::string attention = GENERATE(as<std::string>{}, "additive", "coverage");
  // Float rounding: coverage's small attention gradients are what is left of larger terms that
  // mostly cancel (the state's gradient from later steps, W/tokens from the loss), so batch and
  // alone differ by up to ~2e-5 of them (additive: ~1e-5, and ~1.6e-5 for its bias, a sum of
  // such terms, under concat). A padded step that counted would be off by orders of magnitude
  // more.
  const double tolerance = attention == "coverage" ? 5e-5 : 3e-5;
  for (const Variant& v : kVariants) {
    for (auto cell : {heed::model::CellType::kLstm, heed::model::CellType::kGru}) {
      Seq2Seq model(tiny_config(attention, v.decoder, v.feeding, cell));
      model.initialize(10, 0.4f);
      LossOptions train;
      train.training = false;
      heed::Rng rng = heed::make_rng(1);
      model.parameters().zero_grad();
      const auto whole = model.loss(batch, train, rng);
      // The mean-loss gradient scaled back to a sum: Σ over sentences of their own sums.
      std::vector<std::vector<double>> batch_sum;
      for (const auto& g : gradients(model)) {
        batch_sum.emplace_back(g.begin(), g.end());
        for (double& x : batch_sum.back()) x *= double(whole.tokens);
      }
      std::vector<std::vector<double>> alone_sum(batch_sum.size());
      double alone_loss = 0;
      for (int64_t n = 0; n < batch.size; ++n) {
        const Batch one = single(batch, n);
        model.parameters().zero_grad();
        const auto sums = model.loss(one, train, rng);
        alone_loss += sums.loss;
        const auto g = gradients(model);
        for (size_t i = 0; i < g.size(); ++i) {
          alone_sum[i].resize(g[i].size());
          for (size_t k = 0; k < g[i].size(); ++k)
            alone_sum[i][k] += double(g[i][k]) * double(sums.tokens);
        }
      }
      INFO(attention << " " << v.name << " " << heed::model::to_string(cell));
      CHECK(std::fabs(whole.loss - alone_loss) < 1e-5 * whole.loss);
      for (size_t i = 0; i < batch_sum.size(); ++i) {
        double err = 0, scale = 1e-4;  // absolute floor: float rounding of near-zero gradients
        for (size_t k = 0; k < batch_sum[i].size(); ++k) {
          err = std::max(err, std::fabs(batch_sum[i][k] - alone_sum[i][k]));
          scale = std::max(scale, std::fabs(alone_sum[i][k]));
        }
        INFO(model.parameters().all()[i]->name << " err " << err << " scale " << scale);
        CHECK(err / scale < tolerance);
      }
    }
  }
}

TEST_CASE("seq2seq: initialize() honours a parameter's fixed initial value", "[model][fast]") {
  // normed-additive fixes its scale at sqrt(1/A) and its bias at 0 (TF's start); every other
  // parameter is drawn uniformly in ±init-scale.
  Seq2Seq model(tiny_config("normed-additive", heed::model::DecoderType::kBahdanau, false,
                            heed::model::CellType::kGru));
  model.initialize(3, 0.1f);
  int fixed = 0;
  for (const heed::layers::Parameter* p : model.parameters().all()) {
    INFO(p->name);
    const std::vector<float> v = p->value.to_vector();
    if (p->initial_value) {
      ++fixed;
      for (float x : v) CHECK(x == *p->initial_value);
    } else {
      float largest = 0;
      for (float x : v) largest = std::max(largest, std::fabs(x));
      CHECK(largest <= 0.1f);
      CHECK(largest > 0.f);
    }
  }
  CHECK(fixed == 2);
  CHECK(model.parameters().get("decoder/attention/scale").value.data()[0] ==
        Approx(std::sqrt(1.0 / 4)));
  CHECK(model.parameters().get("decoder/attention/bias").value.data()[0] == 0.f);
}

TEST_CASE("seq2seq: a model built to decode holds no gradients, scores as one built to train",
          "[model][fast]") {
  heed::onednn::set_threads(1);
  const ModelConfig config = tiny_config("additive", heed::model::DecoderType::kBahdanau, false,
                                         heed::model::CellType::kLstm);
  Seq2Seq trained(config);
  trained.initialize(4, 0.4f);
  Seq2Seq decoding(config, heed::onednn::Precision::kF32, {}, heed::model::ModelUse::kInference);
  for (heed::layers::Parameter* p : decoding.parameters().all()) {
    INFO(p->name);
    CHECK(p->grad.empty());
    const heed::tensor::Tensor& value = trained.parameters().get(p->name).value;
    std::copy_n(value.data(), value.numel(), p->value.data());
  }
  decoding.weights_changed();
  const Batch batch = make_batch({4, 2}, {3, 2}, 11, 9, 8);
  LossOptions score;
  score.training = false;
  score.backward = false;
  heed::Rng rng = heed::make_rng(1);
  CHECK(decoding.loss(batch, score, rng).loss == trained.loss(batch, score, rng).loss);
  score.backward = true;
  CHECK_THROWS_AS(decoding.loss(batch, score, rng), heed::InternalError);
}

TEST_CASE("seq2seq: search steps score a target as teacher forcing does, for every decoder",
          "[model][fast]") {
  heed::onednn::set_threads(1);
  // Three sentences; and 300, more rows than a search step gives the RNN in one run (128).
  std::vector<int64_t> many_sources, many_targets;
  for (int64_t i = 0; i < 300; ++i) {
    many_sources.push_back(1 + i % 5);
    many_targets.push_back(1 + i % 3);
  }
  for (const Batch& batch : {make_batch({4, 2, 3}, {3, 1, 2}, 11, 9, 13),
                             make_batch(many_sources, many_targets, 11, 9, 15)}) {
    for (const Variant& v : kVariants) {
      // A key-side precomputation, a context of width A ≠ K, and a mechanism that keeps state.
      for (const char* attention : {"general", "multi-head", "coverage"}) {
        Seq2Seq model(tiny_config(attention, v.decoder, v.feeding, heed::model::CellType::kLstm));
        model.initialize(14, 0.4f);
        LossOptions eval;
        eval.training = false;
        eval.backward = false;
        heed::Rng rng = heed::make_rng(1);
        const double forced = model.loss(batch, eval, rng).loss;
        model.encoder().forward(batch.src.data(), batch.src_lengths, batch.size, batch.src_len,
                                /*training=*/false, nullptr);
        model.decoder().begin(model.encoder().keys(), batch.src_lengths, model.encoder().finals());
        double stepped = 0;
        heed::tensor::Tensor out, log_probs;
        std::vector<int32_t> tokens(size_t(batch.size));
        for (int64_t t = 0; t < batch.tgt_len; ++t) {
          for (int64_t b = 0; b < batch.size; ++b) {
            tokens[size_t(b)] = batch.tgt_in[size_t(b * batch.tgt_len + t)];
          }
          model.decoder().step(tokens.data(), out, nullptr);
          REQUIRE(out.dim(1) == model.decoder().output_size());
          model.output().log_probs(out, log_probs);
          for (int64_t b = 0; b < batch.size; ++b) {
            if (t >= batch.tgt_lengths[size_t(b)]) continue;
            const int32_t y = batch.tgt_out[size_t(b * batch.tgt_len + t)];
            stepped -= double(log_probs.data()[b * model.config().tgt_vocab_size + y]);
          }
        }
        INFO(attention << " " << v.name << ", " << batch.size << " sentences");
        CHECK(stepped == Approx(forced).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("seq2seq: general --identity-init starts W_a at the identity, the scores of dot",
          "[model][fast]") {
  heed::onednn::set_threads(1);
  const Batch batch = make_batch({4, 2, 3}, {3, 1, 2}, 11, 9, 15);
  for (const Variant& v : kVariants) {
    Seq2Seq identity(tiny_config("general", v.decoder, v.feeding, heed::model::CellType::kGru,
                                 {{"identity-init", 1}}));
    identity.initialize(16, 0.1f);
    const heed::layers::Parameter& w = identity.parameters().get("decoder/attention/weight");
    CHECK(w.initial_identity);
    CHECK_FALSE(w.initial_value.has_value());
    for (int64_t i = 0; i < 6; ++i) {
      for (int64_t k = 0; k < 6; ++k) CHECK(w.value.data()[i * 6 + k] == (i == k ? 1.f : 0.f));
    }
    // Its draws are still made: the parameters after it start as without the option.
    Seq2Seq drawn(tiny_config("general", v.decoder, v.feeding, heed::model::CellType::kGru));
    drawn.initialize(16, 0.1f);
    for (const heed::layers::Parameter* p : drawn.parameters().all()) {
      if (p->name == "decoder/attention/weight") continue;
      INFO(p->name);
      CHECK(p->value.to_vector() == identity.parameters().get(p->name).value.to_vector());
    }
    // With W_a = I general is dot: the same loss with the same other parameters.
    Seq2Seq dot(tiny_config("dot", v.decoder, v.feeding, heed::model::CellType::kGru));
    for (heed::layers::Parameter* p : dot.parameters().all()) {
      const std::vector<float> values = identity.parameters().get(p->name).value.to_vector();
      std::copy(values.begin(), values.end(), p->value.data());
    }
    dot.weights_changed();
    LossOptions eval;
    eval.training = false;
    eval.backward = false;
    heed::Rng rng = heed::make_rng(1);
    INFO(v.name);
    CHECK(identity.loss(batch, eval, rng).loss == Approx(dot.loss(batch, eval, rng).loss));
  }
}

TEST_CASE("seq2seq: built from a validated config, with the attention it carries",
          "[model][fast]") {
  ModelConfig c =
      tiny_config("mlp", heed::model::DecoderType::kLuong, true, heed::model::CellType::kLstm);
  // Not validated yet: the model validates it (and refuses it as validate would).
  const Seq2Seq fresh(c);
  CHECK(fresh.config().validated());
  CHECK(fresh.attention().name() == "additive");
  c.validate();
  const Seq2Seq built(c);
  CHECK(built.attention().name() == "additive");
  CHECK(built.attention().config().query_size == 6);
  // Changed after validate(): the attention is resolved again for the new sizes.
  c.hidden = 8;
  const Seq2Seq wider(c);
  CHECK(wider.attention().config().query_size == 8);
  c.dropout = 1.5f;
  CHECK_THROWS_AS(Seq2Seq(c), heed::ConfigError);
}

TEST_CASE(
    "seq2seq: with two threads a bidirectional encoder runs its directions at once, one thread "
    "each: the loss and gradients of one thread, and the gradient check passes",
    "[model]") {
  // Sizes at which oneDNN splits a direction's work over two threads when it has them.
  const Batch batch = make_batch({9, 4, 12, 7, 12, 3, 8, 10}, {6, 3, 9, 5, 7, 2, 8, 4}, 40, 30, 6);
  for (auto cell : {heed::model::CellType::kLstm, heed::model::CellType::kGru}) {
    ModelConfig c = tiny_config("general", heed::model::DecoderType::kLuong, true, cell);
    c.embed = 24;
    c.hidden = 64;
    c.attention_dim = 16;
    c.encoder_layers = 2;
    c.src_vocab_size = 40;
    c.tgt_vocab_size = 30;
    std::vector<double> losses;
    std::vector<std::vector<std::vector<float>>> grads;
    for (int threads : {1, 2}) {
      heed::onednn::set_threads(threads);
      Seq2Seq model(c);
      model.initialize(3, 0.3f);
      model.parameters().zero_grad();
      LossOptions train;
      train.training = false;
      heed::Rng rng = heed::make_rng(1);
      const auto sums = model.loss(batch, train, rng);
      losses.push_back(sums.loss);
      grads.push_back(gradients(model));
    }
    INFO(heed::model::to_string(cell));
    CHECK(losses[1] == Approx(losses[0]).epsilon(1e-6));
    REQUIRE(grads[0].size() == grads[1].size());
    for (size_t p = 0; p < grads[0].size(); ++p) {
      REQUIRE(grads[0][p].size() == grads[1][p].size());
      for (size_t i = 0; i < grads[0][p].size(); ++i) {
        INFO("parameter " << p << " element " << i);
        CHECK(grads[1][p][i] == Approx(grads[0][p][i]).epsilon(1e-4).margin(1e-7));
      }
    }
    Seq2Seq model(c);  // still two threads
    const auto result = check_loss_gradients(model, batch, 5);
    INFO(result.report);
    CHECK(result.ok);
  }
  heed::onednn::set_threads(1);
}
