//===- OpsFusedTest.cpp - contractions with epilogues against PyTorch -----===//
//
// Each case mirrors the one of the same name in tests/reference/ops/fused.py.
// Compiled with nn-optimize (the default), every case is one nn.fused group
// that convert-nn-to-kernel turns into a micro-kernel call applying the
// bias, residual and activation in its store (gelu and silu: the kernel,
// then a pointwise loop), so these compare the kernels' epilogues with
// PyTorch.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

namespace nn::testing {
namespace {

// The kernels sum in a different order than PyTorch's BLAS (packed K blocks
// of 256), as convolutions always do here; same tolerance as
// OpsConvolutionTest's kConv.
constexpr Tolerance kKernel = {1e-4, 1e-5};

using F2 = F::Conv2dFuncOptions;

const OpCase kFusedCases[] = {
    {"fused", "linear_relu6_k300",
     [](const Inputs &in) -> Outputs {
       return {F::relu6(F::linear(in[0], in[1], in[2]))};
     },
     kKernel},
    {"fused", "linear_residual_leaky_relu_3d",
     [](const Inputs &in) -> Outputs {
       return {
           F::leaky_relu(F::add(F::linear(in[0], in[1], in[2]), in[3]), 0.1)};
     },
     kKernel},
    {"fused", "linear_residual_gelu",
     [](const Inputs &in) -> Outputs {
       return {F::gelu(F::add(F::linear(in[0], in[1], in[2]), in[3]))};
     },
     kKernel},
    {"fused", "matmul_row_add_hardtanh",
     [](const Inputs &in) -> Outputs {
       return {F::hardtanh(F::add(F::matmul(in[0], in[1]), in[2]), -0.5, 0.75)};
     },
     kKernel},
    {"fused", "conv_bias_residual_relu_2x8x9x7",
     [](const Inputs &in) -> Outputs {
       return {F::relu(F::add(
           F::conv2d(in[0], in[1], F2().bias(in[2]).padding(1)), in[3]))};
     },
     kKernel},
    {"fused", "conv_stride2_channel_add_leaky_relu",
     [](const Inputs &in) -> Outputs {
       return {F::leaky_relu(
           F::add(F::conv2d(in[0], in[1], F2().stride(2).padding(1)), in[2]),
           0.2)};
     },
     kKernel},
    {"fused", "conv_bias_silu",
     [](const Inputs &in) -> Outputs {
       return {F::silu(F::conv2d(in[0], in[1], F2().bias(in[2])))};
     },
     kKernel},
    {"fused", "conv1x1_bias_relu_k288",
     [](const Inputs &in) -> Outputs {
       return {F::relu(F::conv2d(in[0], in[1], F2().bias(in[2])))};
     },
     kKernel},
};

INSTANTIATE_TEST_SUITE_P(Fused, OpGoldenTest, ::testing::ValuesIn(kFusedCases),
                         caseName);

/// The cases above test the fused kernel path only if nn-optimize groups the
/// contraction with its epilogue: conv + bias + residual + relu is one group.
TEST(FusedGroups, ConvResidualReluIsOneGroup) {
  Module root("conv_bias_residual_relu");
  TracedModule traced =
      trace(root,
            {TensorSpec({2, 8, 9, 7}), TensorSpec({8, 8, 3, 3}),
             TensorSpec({8}), TensorSpec({2, 8, 9, 7})},
            kFusedCases[4].fn);
  traced.optimize();
  std::string ir = traced.to_string();
  EXPECT_NE(ir.find("nn.fused"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("nn.fused", ir.find("nn.fused") + 1), std::string::npos)
      << ir;
}

} // namespace

std::vector<OpCase> fusedOpCases() {
  return {std::begin(kFusedCases), std::end(kFusedCases)};
}

} // namespace nn::testing
