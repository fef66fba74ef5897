//===- LayerNormTest.cpp - LayerNorm parameters and repr ------------------===//
//
// Expected strings are PyTorch 1.13's (print(torch.nn.LayerNorm(...)) and
// its state_dict's names and shapes).
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "gtest/gtest.h"

namespace nn::testing {
namespace {

TEST(LayerNormTest, DefaultsMatchPyTorch) {
  LayerNorm ln(LayerNormOptions({16}));
  EXPECT_EQ(repr(ln), "LayerNorm((16,), eps=1e-05, elementwise_affine=True)");
  EXPECT_EQ(stateSummary(*ln), "weight:16:float32;bias:16:float32;");
  EXPECT_EQ(ln->weight.data_ptr<float>()[15], 1.0f);
  EXPECT_EQ(ln->bias.data_ptr<float>()[15], 0.0f);
}

TEST(LayerNormTest, NoAffine) {
  LayerNorm ln(LayerNormOptions({3, 4}).eps(1e-6).elementwise_affine(false));
  EXPECT_EQ(repr(ln), "LayerNorm((3, 4), eps=1e-06, elementwise_affine=False)");
  EXPECT_EQ(stateSummary(*ln), "");
}

TEST(LayerNormTest, ShapeErrorNamesBothShapes) {
  LayerNorm ln(LayerNormOptions({16}));
  try {
    trace(ln, {TensorSpec({2, 15})});
    FAIL() << "expected nn::Error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "<root>: layer_norm: input 2x15 does not end with "
              "normalized_shape 16");
  }
}

} // namespace
} // namespace nn::testing
