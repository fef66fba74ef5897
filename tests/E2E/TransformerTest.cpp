//===- TransformerTest.cpp - attention layers against PyTorch goldens -----===//
//
// Each case mirrors the one of the same name in
// tests/reference/ops/transformer.py: the golden's inputs are the layer's
// data inputs, then its state_dict values in PyTorch's order. The test builds
// the nn layer, loads those values under its own state_dict keys (so the two
// orders must agree), traces the call in eval mode, compiles it and compares
// every output with PyTorch's.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

#include "gmock/gmock.h"

#include <algorithm>
#include <cmath>

namespace nn::testing {
namespace {

struct LayerCase {
  std::string name;
  /// How many golden inputs are data (the rest are weights).
  size_t data;
  std::function<std::shared_ptr<Module>()> make;
  /// Calls the layer (through its holder) on the data inputs.
  std::function<Outputs(const std::shared_ptr<Module> &, const Inputs &)> call;
};

void PrintTo(const LayerCase &c, std::ostream *os) { *os << c.name; }

template <typename Holder>
std::shared_ptr<Holder> as(const std::shared_ptr<Module> &module) {
  return std::make_shared<Holder>(
      std::dynamic_pointer_cast<typename Holder::Impl>(module));
}

/// Outputs of an MHA call: the output, and the weights when defined.
Outputs both(const std::tuple<Tensor, Tensor> &result) {
  Outputs out{std::get<0>(result)};
  if (std::get<1>(result).defined())
    out.push_back(std::get<1>(result));
  return out;
}

using MHAOptions = MultiheadAttentionOptions;
using LayerOptions = TransformerEncoderLayerOptions;

std::vector<LayerCase> layerCases() {
  auto mha = [](MHAOptions o) {
    return [o]() -> std::shared_ptr<Module> {
      return MultiheadAttention(o).ptr();
    };
  };
  auto layer = [](LayerOptions o) {
    return [o]() -> std::shared_ptr<Module> {
      return TransformerEncoderLayer(o).ptr();
    };
  };
  auto callMHA = [](auto fn) {
    return [fn](const std::shared_ptr<Module> &m, const Inputs &in) {
      return both(fn(*as<MultiheadAttention>(m), in));
    };
  };
  auto callLayer = [](auto fn) {
    return [fn](const std::shared_ptr<Module> &m, const Inputs &in) {
      return Outputs{fn(*as<TransformerEncoderLayer>(m), in)};
    };
  };
  using MHA = MultiheadAttention;
  using TEL = TransformerEncoderLayer;
  return {
      {"mha_self", 1, mha(MHAOptions(8, 2)),
       callMHA(
           [](MHA &m, const Inputs &in) { return m(in[0], in[0], in[0]); })},
      {"mha_cross_batch_first_per_head_weights", 3,
       mha(MHAOptions(12, 3).batch_first(true)),
       callMHA([](MHA &m, const Inputs &in) {
         return m(in[0], in[1], in[2], Tensor(), true, Tensor(),
                  /*average_attn_weights=*/false);
       })},
      {"mha_bool_masks_no_weights", 3, mha(MHAOptions(8, 4)),
       callMHA([](MHA &m, const Inputs &in) {
         return m(in[0], in[0], in[0], /*key_padding_mask=*/in[2],
                  /*need_weights=*/false, /*attn_mask=*/in[1]);
       })},
      {"mha_float_3d_mask", 2, mha(MHAOptions(6, 2).batch_first(true)),
       callMHA([](MHA &m, const Inputs &in) {
         return m(in[0], in[0], in[0], Tensor(), true, in[1]);
       })},
      {"mha_kdim_vdim", 3,
       mha(MHAOptions(8, 2).kdim(5).vdim(3).batch_first(true)),
       callMHA(
           [](MHA &m, const Inputs &in) { return m(in[0], in[1], in[2]); })},
      {"mha_unbatched_nobias", 2, mha(MHAOptions(8, 2).bias(false)),
       callMHA([](MHA &m, const Inputs &in) {
         return m(in[0], in[0], in[0], in[1]);
       })},
      {"mha_bias_kv", 1, mha(MHAOptions(8, 2).add_bias_kv(true)),
       callMHA(
           [](MHA &m, const Inputs &in) { return m(in[0], in[0], in[0]); })},
      {"mha_zero_attn_masks_no_weights", 3,
       mha(MHAOptions(8, 4).add_zero_attn(true)),
       callMHA([](MHA &m, const Inputs &in) {
         return m(in[0], in[0], in[0], /*key_padding_mask=*/in[2],
                  /*need_weights=*/false, /*attn_mask=*/in[1]);
       })},
      {"mha_bias_kv_zero_attn_cross_float_mask", 5,
       mha(MHAOptions(6, 2).add_bias_kv(true).add_zero_attn(true).batch_first(
           true)),
       callMHA([](MHA &m, const Inputs &in) {
         return m(in[0], in[1], in[2], /*key_padding_mask=*/in[4],
                  /*need_weights=*/true, /*attn_mask=*/in[3],
                  /*average_attn_weights=*/false);
       })},
      {"encoder_layer_post_relu", 1,
       layer(LayerOptions(8, 2).dim_feedforward(16)),
       callLayer([](TEL &m, const Inputs &in) { return m(in[0]); })},
      {"encoder_layer_pre_gelu_batch_first_padding", 2,
       layer(LayerOptions(8, 4)
                 .dim_feedforward(12)
                 .activation("gelu")
                 .norm_first(true)
                 .batch_first(true)
                 .layer_norm_eps(1e-6)),
       callLayer(
           [](TEL &m, const Inputs &in) { return m(in[0], Tensor(), in[1]); })},
      // is_causal: the causal triangle in the op instead of the float mask.
      {"encoder_layer_causal", 2,
       layer(LayerOptions(8, 2).dim_feedforward(16).batch_first(true)),
       callLayer([](TEL &m, const Inputs &in) {
         return m(in[0], in[1], Tensor(), /*is_causal=*/true);
       })},
      {"encoder_2_layers_norm", 2,
       [] {
         return TransformerEncoder(
                    TransformerEncoderOptions(
                        TransformerEncoderLayer(
                            LayerOptions(8, 2).dim_feedforward(16)),
                        2)
                        .norm(LayerNorm(LayerNormOptions({8}))))
             .ptr();
       },
       [](const std::shared_ptr<Module> &m, const Inputs &in) {
         return Outputs{(*as<TransformerEncoder>(m))(in[0], in[1])};
       }},
  };
}

class TransformerGoldenTest : public ::testing::TestWithParam<LayerCase> {};

TEST_P(TransformerGoldenTest, MatchesPyTorchInEval) {
  const LayerCase &c = GetParam();
  std::string path = std::string(NN_SOURCE_DIR) +
                     "/tests/reference/goldens/ops/transformer/" + c.name +
                     ".safetensors";
  auto golden = load_safetensors(path);
  ASSERT_TRUE(golden.ok()) << golden.status();
  auto input = [&](size_t i) {
    return golden->tensors.find("input." + std::to_string(i));
  };

  std::shared_ptr<Module> model = c.make();
  StateDict weights;
  size_t next = c.data;
  for (const auto &[name, t] : model->state_dict()) {
    const Tensor *value = input(next++);
    ASSERT_TRUE(value) << path << " has fewer weights than " << name;
    weights.insert(name, *value);
  }
  ASSERT_FALSE(input(next)) << path << " has more weights than the nn layer";
  model->load_state_dict(weights);
  model->eval();

  Inputs data;
  std::vector<TensorSpec> specs;
  for (size_t i = 0; i < c.data; ++i) {
    data.push_back(*input(i));
    specs.emplace_back(data.back().shape(), data.back().dtype());
  }
  TracedModule traced =
      trace(*model, specs, [&](const Inputs &in) { return c.call(model, in); });
  auto outputs = compile(traced)->run(data);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  std::vector<Tensor> expected;
  for (int i = 0;
       const Tensor *t = golden->tensors.find("output." + std::to_string(i));
       ++i)
    expected.push_back(*t);
  ASSERT_EQ(outputs->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    expectClose((*outputs)[i], expected[i], Tolerance(),
                c.name + " output." + std::to_string(i));
}

INSTANTIATE_TEST_SUITE_P(Layers, TransformerGoldenTest,
                         ::testing::ValuesIn(layerCases()),
                         [](const auto &info) { return info.param.name; });

//===----------------------------------------------------------------------===//
// What the layers promise beside their numerics
//===----------------------------------------------------------------------===//

std::string repr(const Module &m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

std::vector<std::string> keys(const Module &m) {
  std::vector<std::string> out;
  for (const auto &[name, t] : m.state_dict())
    out.push_back(name + " " + shape_str(t.shape()));
  return out;
}

TEST(TransformerLayerTest, MultiheadAttentionPrintsAsPyTorch) {
  manual_seed(0);
  MultiheadAttention mha(8, 2);
  EXPECT_EQ(repr(*mha),
            "MultiheadAttention(\n"
            "  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, "
            "out_features=8, bias=True)\n"
            ")");
  EXPECT_THAT(keys(*mha),
              ::testing::ElementsAre("in_proj_weight 24x8", "in_proj_bias 24",
                                     "out_proj.weight 8x8", "out_proj.bias 8"));
}

// `mha(x, x, x, {}, false)` compiles (a braced {} cannot go through the
// holder's forwarding template) and is forward with hooks, as mha->forward.
TEST(TransformerLayerTest, TheHolderTakesForwardsArgumentsAsDeclared) {
  manual_seed(0);
  MultiheadAttention mha(8, 2);
  auto traced = [&](bool throughHolder) {
    return trace(*mha, {TensorSpec({3, 2, 8})},
                 [&](const std::vector<Tensor> &in) {
                   const Tensor &x = in[0];
                   auto [out, weights] =
                       throughHolder ? mha(x, x, x, {}, false)
                                     : mha->forward(x, x, x, Tensor(), false);
                   EXPECT_FALSE(weights.defined());
                   return std::vector<Tensor>{out};
                 })
        .to_string();
  };
  EXPECT_EQ(traced(true), traced(false));
}

TEST(TransformerLayerTest, SeparateProjectionsWhenKdimOrVdimDiffer) {
  manual_seed(0);
  MultiheadAttention mha(MHAOptions(8, 2).kdim(3).vdim(5).bias(false));
  EXPECT_THAT(keys(*mha), ::testing::ElementsAre(
                              "q_proj_weight 8x8", "k_proj_weight 8x3",
                              "v_proj_weight 8x5", "out_proj.weight 8x8"));
  EXPECT_THAT(repr(*mha), ::testing::HasSubstr("bias=False"));
}

/// The largest magnitude, the mean and the variance of `t`'s elements.
struct Moments {
  double max = 0, mean = 0, variance = 0;
};
Moments momentsOf(const Tensor &t) {
  Moments m;
  double sum = 0, sumSquares = 0;
  int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    double v = t.item_as_double(i);
    m.max = std::max(m.max, std::abs(v));
    sum += v;
    sumSquares += v * v;
  }
  m.mean = sum / static_cast<double>(n);
  m.variance = sumSquares / static_cast<double>(n) - m.mean * m.mean;
  return m;
}

TEST(TransformerLayerTest, MultiheadAttentionInitializesAsPyTorch) {
  // PyTorch's _reset_parameters: in_proj_weight xavier_uniform_, both
  // biases zeros; out_proj.weight keeps Linear's kaiming_uniform_(a=√5),
  // U(-1/√in, 1/√in). U(-b, b) has mean 0 and variance b²/3; with 12,288
  // and 4,096 samples the sample mean lies within 4 standard errors of 0
  // and the sample variance within 5% of b²/3 (its relative standard error
  // is √(0.8/n) < 1.4%): a wrong bound, or a normal distribution of the
  // same variance (whose largest sample exceeds b), fails.
  manual_seed(0);
  MultiheadAttention mha(64, 4);
  for (int64_t i = 0; i < mha->in_proj_bias.numel(); ++i)
    EXPECT_EQ(mha->in_proj_bias.item_as_double(i), 0.0);
  for (int64_t i = 0; i < mha->out_proj->bias.numel(); ++i)
    EXPECT_EQ(mha->out_proj->bias.item_as_double(i), 0.0);
  auto expectUniform = [](const Tensor &w, double bound, const char *what) {
    Moments m = momentsOf(w);
    double n = static_cast<double>(w.numel());
    EXPECT_LE(m.max, bound) << what;
    EXPECT_GE(m.max, 0.99 * bound) << what;
    EXPECT_LE(std::abs(m.mean), 4 * bound / std::sqrt(3 * n)) << what;
    EXPECT_NEAR(m.variance, bound * bound / 3, 0.05 * bound * bound / 3)
        << what;
  };
  // xavier_uniform_ on [192, 64]: b = √(6 / (64 + 192)).
  expectUniform(mha->in_proj_weight, std::sqrt(6.0 / (64 + 192)),
                "in_proj_weight");
  expectUniform(mha->out_proj->weight, 1.0 / std::sqrt(64.0),
                "out_proj.weight");
}

TEST(TransformerLayerTest, EncoderLayerPrintsAsPyTorch) {
  manual_seed(0);
  TransformerEncoderLayer layer(
      TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).activation(
          "gelu"));
  EXPECT_EQ(repr(*layer),
            "TransformerEncoderLayer(\n"
            "  (self_attn): MultiheadAttention(\n"
            "    (out_proj): NonDynamicallyQuantizableLinear(in_features=8, "
            "out_features=8, bias=True)\n"
            "  )\n"
            "  (linear1): Linear(in_features=8, out_features=16, bias=True)\n"
            "  (dropout): Dropout(p=0.1, inplace=False)\n"
            "  (linear2): Linear(in_features=16, out_features=8, bias=True)\n"
            "  (norm1): LayerNorm((8,), eps=1e-05, elementwise_affine=True)\n"
            "  (norm2): LayerNorm((8,), eps=1e-05, elementwise_affine=True)\n"
            "  (dropout1): Dropout(p=0.1, inplace=False)\n"
            "  (dropout2): Dropout(p=0.1, inplace=False)\n"
            ")");
}

TEST(TransformerLayerTest, EncoderClonesItsLayerIntoIndependentCopies) {
  manual_seed(0);
  TransformerEncoderLayer layer(
      TransformerEncoderLayerOptions(8, 2).dim_feedforward(16));
  TransformerEncoder encoder(layer, 2);
  StateDict state = encoder->state_dict();
  EXPECT_EQ(state.size(), 24u);
  const Tensor &w0 = state.at("layers.0.self_attn.in_proj_weight");
  const Tensor &w1 = state.at("layers.1.self_attn.in_proj_weight");
  EXPECT_FALSE(w0.shares_storage(w1));
  EXPECT_FALSE(w0.shares_storage(layer->self_attn->in_proj_weight));
  EXPECT_EQ(w0.item_as_double(5), w1.item_as_double(5));
}

TEST(TransformerLayerTest, BiasKVHasPyTorchsNamesOrderAndInit) {
  // As torch.nn.MultiheadAttention(8, 2, add_bias_kv=True) lists them: its
  // own parameters, then out_proj's; without add_bias_kv the names do not
  // exist (PyTorch assigns None without registering).
  auto keys = [](const MultiheadAttention &m) {
    std::vector<std::string> names;
    for (const auto &[name, t] : m->state_dict())
      names.push_back(name + " " + shape_str(t.shape()));
    return names;
  };
  manual_seed(0);
  MultiheadAttention with(MHAOptions(8, 2).add_bias_kv(true));
  EXPECT_EQ(keys(with),
            (std::vector<std::string>{
                "in_proj_weight 24x8", "in_proj_bias 24", "bias_k 1x1x8",
                "bias_v 1x1x8", "out_proj.weight 8x8", "out_proj.bias 8"}));
  EXPECT_EQ(
      keys(MultiheadAttention(MHAOptions(8, 2).add_zero_attn(true))),
      (std::vector<std::string>{"in_proj_weight 24x8", "in_proj_bias 24",
                                "out_proj.weight 8x8", "out_proj.bias 8"}));
  // xavier_normal_ on [1, 1, 8]: std = √(2 / (8 + 8)) = 0.354; not zeros.
  double sumSquares = 0;
  for (const Tensor *t : {&with->bias_k, &with->bias_v})
    for (int64_t i = 0; i < t->numel(); ++i)
      sumSquares += t->item_as_double(i) * t->item_as_double(i);
  EXPECT_GT(sumSquares, 0.0);
  EXPECT_LT(sumSquares / 16, 0.354 * 0.354 * 4);
}

TEST(TransformerLayerTest, BadOptionsAreRefused) {
  EXPECT_THROW(MultiheadAttention(10, 3), Error);
  EXPECT_THROW(TransformerEncoderLayer(
                   TransformerEncoderLayerOptions(8, 2).activation("tanh")),
               Error);
}

TEST(TransformerLayerTest, IsCausalBecomesTheOpsCausalFlagInsteadOfTheMask) {
  manual_seed(0);
  TransformerEncoderLayer layer(
      TransformerEncoderLayerOptions(8, 2).dim_feedforward(16));
  layer->eval();
  std::string ir =
      trace(*layer, {TensorSpec({5, 2, 8}), TensorSpec({5, 5})},
            [&](const Inputs &in) {
              return Outputs{layer(in[0], in[1], Tensor(), /*is_causal=*/true)};
            })
          .to_string();
  EXPECT_THAT(ir, ::testing::HasSubstr("nn.scaled_dot_product_attention"));
  EXPECT_THAT(ir, ::testing::HasSubstr(" causal :"));
  EXPECT_THAT(ir, ::testing::Not(::testing::HasSubstr(" mask %")));
}

TEST(TransformerLayerTest, IsCausalNeedsTheMask) {
  manual_seed(0);
  MultiheadAttention mha(8, 2);
  mha->eval();
  try {
    trace(*mha, {TensorSpec({5, 2, 8})}, [&](const Inputs &in) {
      return both(mha(in[0], in[0], in[0], Tensor(), false, Tensor(), true,
                      /*is_causal=*/true));
    });
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("is_causal needs attn_mask"));
  }
}

} // namespace
} // namespace nn::testing
