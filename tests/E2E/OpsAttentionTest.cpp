//===- OpsAttentionTest.cpp - attention against PyTorch goldens -----------===//
//
// Each case mirrors the one of the same name in
// tests/reference/ops/attention.py; inputs are query, key, value and, where
// the case has one, the mask.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

namespace nn::testing {
namespace {

using Options = F::ScaledDotProductAttentionFuncOptions;

std::vector<OpCase> attentionCases() {
  std::vector<OpCase> cases;
  // `options(in)` gives the case's options; a fourth input is the mask.
  auto add = [&](
                 std::string name,
                 std::function<Options()> options = [] { return Options(); }) {
    cases.push_back({"attention", std::move(name), [options](const Inputs &in) {
                       Options o = options();
                       if (in.size() > 3)
                         o.attn_mask(in[3]);
                       return Outputs{F::scaled_dot_product_attention(
                           in[0], in[1], in[2], o)};
                     }});
  };
  for (const char *shapes :
       {"nobatch_L5_S7_E3_Ev2", "2_L4_S4_E7_Ev7", "2x3_L5_S7_E1_Ev3",
        "3_L1_S9_E17_Ev4", "2x2_L6_S3_E17_Ev5"})
    add(std::string("sdpa_") + shapes);
  add("sdpa_broadcast_batch");
  add("sdpa_bool_mask");
  add("sdpa_bool_mask_batched");
  add("sdpa_float_mask");
  add("sdpa_float_mask_with_inf");
  auto causal = [] { return Options().is_causal(true); };
  add("sdpa_causal", causal);
  add("sdpa_causal_L3_S7", causal);
  add("sdpa_causal_L7_S3", causal);
  add("sdpa_scale", [] { return Options().scale(0.3); });
  add("sdpa_causal_scale", [] { return Options().is_causal(true).scale(1.7); });
  add("sdpa_large_logits");
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Attention, OpGoldenTest,
                         ::testing::ValuesIn(attentionCases()), caseName);

//===----------------------------------------------------------------------===//
// Errors at trace time
//===----------------------------------------------------------------------===//

TEST(AttentionTraceTest, ShapeErrorNamesBothShapes) {
  EXPECT_EQ(traceError({TensorSpec({2, 5, 8}), TensorSpec({2, 7, 4}),
                        TensorSpec({2, 7, 3})},
                       [](const Inputs &in) {
                         return Outputs{F::scaled_dot_product_attention(
                             in[0], in[1], in[2])};
                       }),
            "<root>: scaled_dot_product_attention: query has embedding size 8 "
            "but key "
            "has 4 (query 2x5x8, key 2x7x4, value 2x7x3)");
}

TEST(AttentionTraceTest, CanonicalMaskRefusesAFloatMaskOfAnotherDtype) {
  EXPECT_EQ(
      traceError({TensorSpec({5, 7}, DType::f64)},
                 [](const Inputs &in) {
                   return Outputs{F::canonical_mask(in[0], DType::f32)};
                 }),
      "<root>: canonical_mask: a float mask must have the attention's dtype "
      "float32, got float64");
}

} // namespace

std::vector<OpCase> attentionOpCases() { return attentionCases(); }

} // namespace nn::testing
