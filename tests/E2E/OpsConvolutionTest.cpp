//===- OpsConvolutionTest.cpp - convolution ops against PyTorch goldens ---===//
//
// Each case mirrors the one of the same name in
// tests/reference/ops/convolution.py. The layer_* goldens are run through
// the layers (PyTorch's weights loaded by state_dict name) at the end.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

#include <filesystem>

namespace nn::testing {
namespace {

// Convolutions sum in a different order than PyTorch's (im2col + GEMM), so
// they get a looser relative tolerance.
constexpr Tolerance kConv = {1e-4, 1e-5};
// Bilinear weights are computed as in PyTorch, but the four products are
// added in a different order.
constexpr Tolerance kBilinearTol = {1e-5, 1e-5};

using F2 = F::Conv2dFuncOptions;
using F1 = F::Conv1dFuncOptions;
using F3 = F::Conv3dFuncOptions;
using FT = F::ConvTranspose2dFuncOptions;
using FT1 = F::ConvTranspose1dFuncOptions;
using FT3 = F::ConvTranspose3dFuncOptions;

const OpCase kConvolutionTable[] = {
    // conv2d
    {"convolution", "conv2d_1x3x7x7_k3",
     [](const Inputs &in) -> Outputs {
       return {F::conv2d(in[0], in[1], F2().bias(in[2]))};
     },
     kConv},
    {"convolution", "conv2d_stride2_pad1_2x3x17x17",
     [](const Inputs &in) -> Outputs {
       return {F::conv2d(in[0], in[1], F2().bias(in[2]).stride(2).padding(1))};
     },
     kConv},
    {"convolution", "conv2d_dilation2_pad2x1_nobias",
     [](const Inputs &in) -> Outputs {
       return {F::conv2d(in[0], in[1], F2().dilation(2).padding({2, 1}))};
     },
     kConv},
    {"convolution", "conv2d_groups2",
     [](const Inputs &in) -> Outputs {
       return {F::conv2d(in[0], in[1], F2().bias(in[2]).groups(2).padding(1))};
     },
     kConv},
    {"convolution", "conv2d_depthwise_3ch",
     [](const Inputs &in) -> Outputs {
       return {F::conv2d(in[0], in[1],
                         F2().bias(in[2]).groups(3).padding(1).stride(2))};
     },
     kConv},
    {"convolution", "conv2d_depthwise_multiplier2",
     [](const Inputs &in) -> Outputs {
       return {F::conv2d(in[0], in[1], F2().groups(3))};
     },
     kConv},
    {"convolution", "conv2d_same_k4x3_dilation1x2",
     [](const Inputs &in) -> Outputs {
       return {F::conv2d(in[0], in[1],
                         F2().bias(in[2]).padding(kSame).dilation({1, 2}))};
     },
     kConv},
    {"convolution", "conv2d_valid",
     [](const Inputs &in) -> Outputs {
       return {F::conv2d(in[0], in[1], F2().padding(kValid))};
     },
     kConv},
    {"convolution", "conv2d_1x1x1x1",
     [](const Inputs &in) -> Outputs {
       return {F::conv2d(in[0], in[1], F2().bias(in[2]))};
     },
     kConv},
    {"convolution", "conv2d_k1x3_stride3x1",
     [](const Inputs &in) -> Outputs {
       return {F::conv2d(in[0], in[1], F2().stride({3, 1}))};
     },
     kConv},
    // conv1d
    {"convolution", "conv1d_2x3x17_k3",
     [](const Inputs &in) -> Outputs {
       return {F::conv1d(in[0], in[1], F1().bias(in[2]))};
     },
     kConv},
    {"convolution", "conv1d_stride2_pad2_dilation2",
     [](const Inputs &in) -> Outputs {
       return {F::conv1d(in[0], in[1],
                         F1().bias(in[2]).stride(2).padding(2).dilation(2))};
     },
     kConv},
    {"convolution", "conv1d_groups2",
     [](const Inputs &in) -> Outputs {
       return {F::conv1d(in[0], in[1], F1().groups(2).padding(1))};
     },
     kConv},
    {"convolution", "conv1d_depthwise",
     [](const Inputs &in) -> Outputs {
       return {F::conv1d(in[0], in[1], F1().bias(in[2]).groups(3))};
     },
     kConv},
    {"convolution", "conv2d_plane_2x3x34x20_s2x1_d1x2",
     [](const Inputs &in) -> Outputs {
       return {F::conv2d(
           in[0], in[1],
           F2().bias(in[2]).stride({2, 1}).padding(1).dilation({1, 2}))};
     },
     kConv},
    {"convolution", "conv1d_plane_2x3x300_k3",
     [](const Inputs &in) -> Outputs {
       return {F::conv1d(in[0], in[1], F1().padding(2))};
     },
     kConv},
    {"convolution", "conv1d_same_k4",
     [](const Inputs &in) -> Outputs {
       return {F::conv1d(in[0], in[1], F1().padding(kSame))};
     },
     kConv},
    // conv_transpose2d
    {"convolution", "conv_transpose2d_1x4x5x5_k3",
     [](const Inputs &in) -> Outputs {
       return {F::conv_transpose2d(in[0], in[1], FT().bias(in[2]))};
     },
     kConv},
    {"convolution", "conv_transpose2d_stride2_pad1_outpad1",
     [](const Inputs &in) -> Outputs {
       return {F::conv_transpose2d(
           in[0], in[1],
           FT().bias(in[2]).stride(2).padding(1).output_padding(1))};
     },
     kConv},
    {"convolution", "conv_transpose2d_groups2_dilation2_stride2",
     [](const Inputs &in) -> Outputs {
       return {F::conv_transpose2d(in[0], in[1],
                                   FT().stride(2).groups(2).dilation(2))};
     },
     kConv},
    {"convolution", "conv_transpose2d_pad3_crops",
     [](const Inputs &in) -> Outputs {
       return {F::conv_transpose2d(
           in[0], in[1], FT().bias(in[2]).stride({2, 1}).padding({3, 1}))};
     },
     kConv},
    {"convolution", "conv_transpose2d_1x1x1x1",
     [](const Inputs &in) -> Outputs {
       return {F::conv_transpose2d(in[0], in[1])};
     },
     kConv},
    // max_pool2d
    {"convolution", "max_pool2d_k2_1x3x8x8",
     [](const Inputs &in) -> Outputs {
       return {F::max_pool2d(in[0], F::MaxPool2dFuncOptions(2))};
     }},
    {"convolution", "max_pool2d_k3_s2_p1_2x3x17x17",
     [](const Inputs &in) -> Outputs {
       return {F::max_pool2d(in[0],
                             F::MaxPool2dFuncOptions(3).stride(2).padding(1))};
     }},
    {"convolution", "max_pool2d_negative_padded",
     [](const Inputs &in) -> Outputs {
       return {F::max_pool2d(in[0],
                             F::MaxPool2dFuncOptions(3).stride(1).padding(1))};
     }},
    {"convolution", "max_pool2d_dilation2",
     [](const Inputs &in) -> Outputs {
       return {F::max_pool2d(
           in[0], F::MaxPool2dFuncOptions(3).stride(1).padding(1).dilation(2))};
     }},
    {"convolution", "max_pool2d_ceil_mode",
     [](const Inputs &in) -> Outputs {
       return {F::max_pool2d(
           in[0], F::MaxPool2dFuncOptions(3).stride(2).ceil_mode(true))};
     }},
    {"convolution", "max_pool2d_ceil_mode_pad1",
     [](const Inputs &in) -> Outputs {
       return {F::max_pool2d(
           in[0],
           F::MaxPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true))};
     }},
    {"convolution", "max_pool2d_k1x3_s1x2_1x1x1x7",
     [](const Inputs &in) -> Outputs {
       return {F::max_pool2d(in[0],
                             F::MaxPool2dFuncOptions({1, 3}).stride({1, 2}))};
     }},
    // avg_pool2d
    {"convolution", "avg_pool2d_k2_1x3x8x8",
     [](const Inputs &in) -> Outputs {
       return {F::avg_pool2d(in[0], F::AvgPool2dFuncOptions(2))};
     }},
    {"convolution", "avg_pool2d_k3_s2_p1",
     [](const Inputs &in) -> Outputs {
       return {F::avg_pool2d(in[0],
                             F::AvgPool2dFuncOptions(3).stride(2).padding(1))};
     }},
    {"convolution", "avg_pool2d_exclude_pad",
     [](const Inputs &in) -> Outputs {
       return {F::avg_pool2d(
           in[0],
           F::AvgPool2dFuncOptions(3).stride(2).padding(1).count_include_pad(
               false))};
     }},
    {"convolution", "avg_pool2d_ceil_mode",
     [](const Inputs &in) -> Outputs {
       return {F::avg_pool2d(
           in[0], F::AvgPool2dFuncOptions(3).stride(2).ceil_mode(true))};
     }},
    {"convolution", "avg_pool2d_ceil_mode_pad1_exclude_pad",
     [](const Inputs &in) -> Outputs {
       return {F::avg_pool2d(in[0], F::AvgPool2dFuncOptions(3)
                                        .stride(2)
                                        .padding(1)
                                        .ceil_mode(true)
                                        .count_include_pad(false))};
     }},
    {"convolution", "avg_pool2d_divisor_override3",
     [](const Inputs &in) -> Outputs {
       return {F::avg_pool2d(
           in[0], F::AvgPool2dFuncOptions(2).stride(1).divisor_override(3))};
     }},
    {"convolution", "avg_pool2d_k1x3_s1x2_1x1x1x7",
     [](const Inputs &in) -> Outputs {
       return {F::avg_pool2d(in[0],
                             F::AvgPool2dFuncOptions({1, 3}).stride({1, 2}))};
     }},
    // adaptive_avg_pool2d
    {"convolution", "adaptive_avg_pool2d_7x7_to_3x3",
     [](const Inputs &in) -> Outputs {
       return {
           F::adaptive_avg_pool2d(in[0], F::AdaptiveAvgPool2dFuncOptions(3))};
     }},
    {"convolution", "adaptive_avg_pool2d_17x17_to_5x7",
     [](const Inputs &in) -> Outputs {
       return {F::adaptive_avg_pool2d(in[0],
                                      F::AdaptiveAvgPool2dFuncOptions({5, 7}))};
     }},
    {"convolution", "adaptive_avg_pool2d_8x8_to_4x4",
     [](const Inputs &in) -> Outputs {
       return {
           F::adaptive_avg_pool2d(in[0], F::AdaptiveAvgPool2dFuncOptions(4))};
     }},
    {"convolution", "adaptive_avg_pool2d_1x1_to_3x3",
     [](const Inputs &in) -> Outputs {
       return {
           F::adaptive_avg_pool2d(in[0], F::AdaptiveAvgPool2dFuncOptions(3))};
     }},
    {"convolution", "adaptive_avg_pool2d_global",
     [](const Inputs &in) -> Outputs {
       return {
           F::adaptive_avg_pool2d(in[0], F::AdaptiveAvgPool2dFuncOptions(1))};
     }},
    // interpolate
    {"convolution", "interpolate_nearest_size_2x",
     [](const Inputs &in) -> Outputs {
       return {F::interpolate(in[0], F::InterpolateFuncOptions().size(
                                         std::vector<int64_t>{14, 14}))};
     }},
    {"convolution", "interpolate_nearest_scale1_5",
     [](const Inputs &in) -> Outputs {
       return {F::interpolate(in[0], F::InterpolateFuncOptions().scale_factor(
                                         std::vector<double>{1.5}))};
     }},
    {"convolution", "interpolate_nearest_down_5x3",
     [](const Inputs &in) -> Outputs {
       return {F::interpolate(in[0], F::InterpolateFuncOptions().size(
                                         std::vector<int64_t>{5, 3}))};
     }},
    {"convolution", "interpolate_nearest_1x1_to_3x3",
     [](const Inputs &in) -> Outputs {
       return {F::interpolate(
           in[0], F::InterpolateFuncOptions().size(std::vector<int64_t>{3}))};
     }},
    {"convolution", "interpolate_bilinear_size_2x",
     [](const Inputs &in) -> Outputs {
       return {F::interpolate(in[0], F::InterpolateFuncOptions()
                                         .size(std::vector<int64_t>{14, 14})
                                         .mode(kBilinear)
                                         .align_corners(false))};
     },
     kBilinearTol},
    {"convolution", "interpolate_bilinear_align_corners_17x3",
     [](const Inputs &in) -> Outputs {
       return {F::interpolate(in[0], F::InterpolateFuncOptions()
                                         .size(std::vector<int64_t>{17, 3})
                                         .mode(kBilinear)
                                         .align_corners(true))};
     },
     kBilinearTol},
    {"convolution", "interpolate_bilinear_scale1_5",
     [](const Inputs &in) -> Outputs {
       return {F::interpolate(in[0], F::InterpolateFuncOptions()
                                         .scale_factor(std::vector<double>{1.5})
                                         .mode(kBilinear)
                                         .align_corners(false))};
     },
     kBilinearTol},
    {"convolution", "interpolate_bilinear_down_3x5",
     [](const Inputs &in) -> Outputs {
       return {F::interpolate(in[0], F::InterpolateFuncOptions()
                                         .size(std::vector<int64_t>{3, 5})
                                         .mode(kBilinear)
                                         .align_corners(false))};
     },
     kBilinearTol},
    {"convolution", "interpolate_bilinear_align_corners_1x1_to_3x3",
     [](const Inputs &in) -> Outputs {
       return {F::interpolate(in[0], F::InterpolateFuncOptions()
                                         .size(std::vector<int64_t>{3})
                                         .mode(kBilinear)
                                         .align_corners(true))};
     },
     kBilinearTol},
    // conv3d
    {"convolution", "conv3d_1x2x5x6x7_k3",
     [](const Inputs &in) -> Outputs {
       return {F::conv3d(in[0], in[1], F3().bias(in[2]))};
     },
     kConv},
    {"convolution", "conv3d_stride2x1x2_pad1x0x1_dilation1x2x1",
     [](const Inputs &in) -> Outputs {
       return {F::conv3d(
           in[0], in[1],
           F3().bias(in[2]).stride({2, 1, 2}).padding({1, 0, 1}).dilation(
               {1, 2, 1}))};
     },
     kConv},
    {"convolution", "conv3d_groups2",
     [](const Inputs &in) -> Outputs {
       return {F::conv3d(in[0], in[1], F3().groups(2).padding(1))};
     },
     kConv},
    {"convolution", "conv3d_depthwise",
     [](const Inputs &in) -> Outputs {
       return {F::conv3d(in[0], in[1],
                         F3().bias(in[2]).groups(3).stride(2).padding(1))};
     },
     kConv},
    {"convolution", "conv3d_same_k2x3x4",
     [](const Inputs &in) -> Outputs {
       return {F::conv3d(in[0], in[1], F3().padding(kSame))};
     },
     kConv},
    {"convolution", "conv3d_k1x3x3",
     [](const Inputs &in) -> Outputs {
       return {F::conv3d(in[0], in[1], F3().padding({0, 1, 1}))};
     },
     kConv},
    {"convolution", "conv3d_plane_1x2x4x9x9_k3",
     [](const Inputs &in) -> Outputs {
       return {F::conv3d(in[0], in[1], F3().bias(in[2]).padding(1))};
     },
     kConv},
    {"convolution", "conv2d_plane_2x3x17x20_same_k4x3_d1x2",
     [](const Inputs &in) -> Outputs {
       return {F::conv2d(in[0], in[1],
                         F2().bias(in[2]).padding(kSame).dilation({1, 2}))};
     },
     kConv},
    // conv_transpose1d / conv_transpose3d
    {"convolution", "conv_transpose3d_stride2_pad1_outpad1",
     [](const Inputs &in) -> Outputs {
       return {F::conv_transpose3d(
           in[0], in[1],
           FT3().bias(in[2]).stride(2).padding(1).output_padding(1))};
     },
     kConv},
    {"convolution", "conv_transpose3d_groups2_dilation2_crops",
     [](const Inputs &in) -> Outputs {
       return {F::conv_transpose3d(
           in[0], in[1],
           FT3().stride({1, 2, 1}).padding({2, 5, 3}).groups(2).dilation(2))};
     },
     kConv},
    {"convolution", "conv_transpose1d_stride2_pad1_outpad1",
     [](const Inputs &in) -> Outputs {
       return {F::conv_transpose1d(
           in[0], in[1],
           FT1().bias(in[2]).stride(2).padding(1).output_padding(1))};
     },
     kConv},
    // 1-D and 3-D pooling
    {"convolution", "max_pool1d_k3_s2_p1_2x3x17",
     [](const Inputs &in) -> Outputs {
       return {F::max_pool1d(in[0],
                             F::MaxPool1dFuncOptions(3).stride(2).padding(1))};
     }},
    {"convolution", "max_pool1d_dilation2_ceil_mode",
     [](const Inputs &in) -> Outputs {
       return {F::max_pool1d(
           in[0],
           F::MaxPool1dFuncOptions(2).stride(3).dilation(2).ceil_mode(true))};
     }},
    {"convolution", "max_pool3d_k2_1x2x4x6x6",
     [](const Inputs &in) -> Outputs {
       return {F::max_pool3d(in[0], F::MaxPool3dFuncOptions(2))};
     }},
    {"convolution", "max_pool3d_k3_s2_p1_ceil_mode",
     [](const Inputs &in) -> Outputs {
       return {F::max_pool3d(
           in[0],
           F::MaxPool3dFuncOptions(3).stride(2).padding(1).ceil_mode(true))};
     }},
    {"convolution", "max_pool3d_k2x1x3_s1x2x2_dilation2x1x1",
     [](const Inputs &in) -> Outputs {
       return {F::max_pool3d(in[0], F::MaxPool3dFuncOptions({2, 1, 3})
                                        .stride({1, 2, 2})
                                        .padding({1, 0, 1})
                                        .dilation({2, 1, 1}))};
     }},
    {"convolution", "avg_pool1d_k2_1x3x8",
     [](const Inputs &in) -> Outputs {
       return {F::avg_pool1d(in[0], F::AvgPool1dFuncOptions(2))};
     }},
    {"convolution", "avg_pool1d_k3_s2_p1_ceil_mode_exclude_pad",
     [](const Inputs &in) -> Outputs {
       return {F::avg_pool1d(in[0], F::AvgPool1dFuncOptions(3)
                                        .stride(2)
                                        .padding(1)
                                        .ceil_mode(true)
                                        .count_include_pad(false))};
     }},
    {"convolution", "avg_pool3d_k2_1x2x4x6x6",
     [](const Inputs &in) -> Outputs {
       return {F::avg_pool3d(in[0], F::AvgPool3dFuncOptions(2))};
     }},
    {"convolution", "avg_pool3d_k3_s2_p1_ceil_mode",
     [](const Inputs &in) -> Outputs {
       return {F::avg_pool3d(
           in[0],
           F::AvgPool3dFuncOptions(3).stride(2).padding(1).ceil_mode(true))};
     }},
    {"convolution", "avg_pool3d_k3_s2_p1_exclude_pad",
     [](const Inputs &in) -> Outputs {
       return {F::avg_pool3d(in[0], F::AvgPool3dFuncOptions({3, 3, 2})
                                        .stride({2, 2, 1})
                                        .padding({1, 1, 0})
                                        .count_include_pad(false))};
     }},
    {"convolution", "avg_pool3d_divisor_override5",
     [](const Inputs &in) -> Outputs {
       return {F::avg_pool3d(
           in[0],
           F::AvgPool3dFuncOptions({1, 2, 2}).stride(1).divisor_override(5))};
     }},
    {"convolution", "adaptive_avg_pool1d_17_to_5",
     [](const Inputs &in) -> Outputs {
       return {
           F::adaptive_avg_pool1d(in[0], F::AdaptiveAvgPool1dFuncOptions(5))};
     }},
    {"convolution", "adaptive_avg_pool3d_5x7x9_to_2x3x4",
     [](const Inputs &in) -> Outputs {
       return {F::adaptive_avg_pool3d(
           in[0], F::AdaptiveAvgPool3dFuncOptions({2, 3, 4}))};
     }},
    {"convolution", "adaptive_avg_pool3d_global",
     [](const Inputs &in) -> Outputs {
       return {
           F::adaptive_avg_pool3d(in[0], F::AdaptiveAvgPool3dFuncOptions(1))};
     }},
    {"convolution", "adaptive_avg_pool3d_2x3x1_to_4x3x2",
     [](const Inputs &in) -> Outputs {
       return {F::adaptive_avg_pool3d(
           in[0], F::AdaptiveAvgPool3dFuncOptions({4, 3, 2}))};
     }},
};

/// Strided convolutions on planes of 256 positions or more (the weight
/// gradient's GEMM over stride phases), and one padded wider than its
/// kernel's reach. A table of their own: clang-format
/// lays the one above out very differently once it grows any longer.
const OpCase kStridedPlaneCases[] = {
    {"convolution", "conv2d_plane_1x3x31x31_k3_s2_p1",
     [](const Inputs &in) -> Outputs {
       return {F::conv2d(in[0], in[1], F2().bias(in[2]).stride(2).padding(1))};
     },
     kConv},
    {"convolution", "conv2d_plane_2x4x32x33_k1_s2",
     [](const Inputs &in) -> Outputs {
       return {F::conv2d(in[0], in[1], F2().stride(2))};
     },
     kConv},
    {"convolution", "conv2d_k1_s2_pad2",
     [](const Inputs &in) -> Outputs {
       return {F::conv2d(in[0], in[1], F2().bias(in[2]).stride(2).padding(2))};
     },
     kConv},
};

/// Both tables (built on first use: other files' suites read it while
/// they are registered).
const std::vector<OpCase> &convolutionCases() {
  static const std::vector<OpCase> cases = [] {
    std::vector<OpCase> all(std::begin(kConvolutionTable),
                            std::end(kConvolutionTable));
    all.insert(all.end(), std::begin(kStridedPlaneCases),
               std::end(kStridedPlaneCases));
    return all;
  }();
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Convolution, OpGoldenTest,
                         ::testing::ValuesIn(convolutionCases()), caseName);

// nn-decompose-conv3d turns every 3-D convolution above into 2-D ones; the
// 3-D lowering itself (linalg.conv_3d_ncdhw_fcdhw, the grouped generic)
// runs when the pass is off.
TEST(Conv3dWithoutDecomposition, MatchesPyTorch) {
  CompileOptions options;
  options.optimize_options.decompose_conv3d = false;
  int checked = 0;
  for (const OpCase &c : convolutionCases()) {
    if (c.name.rfind("conv3d", 0) != 0)
      continue;
    SCOPED_TRACE(c.name);
    expectMatchesGolden(c, options);
    ++checked;
  }
  EXPECT_EQ(checked, 7);
}

//===----------------------------------------------------------------------===//
// Layers: PyTorch's weights loaded by state_dict name, traced, compiled, run.
//===----------------------------------------------------------------------===//

/// Runs `layer` on golden `name`'s input.0 with its parameters set from
/// input.1, input.2, ... (in state_dict order) and compares with output.0.
template <typename Holder>
void expectLayerMatches(Holder layer, const std::string &name,
                        const Tolerance &tolerance = {}) {
  auto golden = load_safetensors(std::string(NN_SOURCE_DIR) +
                                 "/tests/reference/goldens/ops/convolution/" +
                                 name + ".safetensors");
  ASSERT_TRUE(golden.ok()) << golden.status();
  const Tensor &input = golden->tensors.at("input.0");
  StateDict weights;
  std::vector<std::string> keys = layer->state_dict().keys();
  for (size_t i = 0; i < keys.size(); ++i)
    weights.insert(keys[i],
                   golden->tensors.at("input." + std::to_string(i + 1)));
  layer->load_state_dict(weights);
  auto artifact = compile(trace(layer, {TensorSpec(input.shape())}));
  auto outputs = artifact->run({input});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  expectClose((*outputs)[0], golden->tensors.at("output.0"), tolerance, name);
}

TEST(ConvolutionLayers, Conv2dMatchesPyTorch) {
  expectLayerMatches(Conv2d(Conv2dOptions(3, 4, 3).stride(2).padding(1)),
                     "layer_conv2d", kConv);
}

TEST(ConvolutionLayers, DepthwiseConv2dWithoutBiasMatchesPyTorch) {
  expectLayerMatches(
      Conv2d(Conv2dOptions(3, 3, 3).padding(kSame).groups(3).bias(false)),
      "layer_conv2d_depthwise_nobias", kConv);
}

TEST(ConvolutionLayers, Conv1dMatchesPyTorch) {
  expectLayerMatches(Conv1d(Conv1dOptions(3, 4, 3).padding(1).dilation(2)),
                     "layer_conv1d", kConv);
}

TEST(ConvolutionLayers, ConvTranspose2dMatchesPyTorch) {
  expectLayerMatches(
      ConvTranspose2d(
          ConvTranspose2dOptions(4, 2, 3).stride(2).padding(1).output_padding(
              1)),
      "layer_conv_transpose2d", kConv);
}

TEST(ConvolutionLayers, Conv3dMatchesPyTorch) {
  expectLayerMatches(
      Conv3d(
          Conv3dOptions(2, 3, {2, 3, 3}).stride({1, 2, 2}).padding({0, 1, 1})),
      "layer_conv3d", kConv);
}

TEST(ConvolutionLayers, ConvTranspose3dWithoutBiasMatchesPyTorch) {
  expectLayerMatches(ConvTranspose3d(ConvTranspose3dOptions(3, 2, 3)
                                         .stride(2)
                                         .padding(1)
                                         .output_padding({0, 1, 1})
                                         .bias(false)),
                     "layer_conv_transpose3d", kConv);
}

TEST(ConvolutionLayers, ConvTranspose1dMatchesPyTorch) {
  expectLayerMatches(
      ConvTranspose1d(ConvTranspose1dOptions(3, 2, 4).stride(3).dilation(2)),
      "layer_conv_transpose1d", kConv);
}

// The ahead-of-time path: the padded, strided convolution loads from a
// shared object that links nothing but the runtime.
TEST(ConvolutionLayers, Conv2dSharedObjectMatchesPyTorch) {
  auto golden = load_safetensors(std::string(NN_SOURCE_DIR) +
                                 "/tests/reference/goldens/ops/convolution/"
                                 "layer_conv2d.safetensors");
  ASSERT_TRUE(golden.ok()) << golden.status();
  Conv2d conv(Conv2dOptions(3, 4, 3).stride(2).padding(1));
  StateDict weights;
  weights.insert("weight", golden->tensors.at("input.1"));
  weights.insert("bias", golden->tensors.at("input.2"));
  const Tensor &input = golden->tensors.at("input.0");
  std::string dir = ::testing::TempDir() + "/nn_conv2d_layer";
  std::filesystem::create_directories(dir);
  compile_to_file(trace(conv, {TensorSpec(input.shape())}), dir + "/conv.so");
  auto artifact = Artifact::load(dir + "/conv.so");
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  ASSERT_TRUE((*artifact)->bind(weights).ok());
  auto outputs = (*artifact)->run({input});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  expectClose((*outputs)[0], golden->tensors.at("output.0"), kConv,
              "layer_conv2d (shared object)");
}

// Parameter-free layers run on the functional goldens of the same options.
TEST(ConvolutionLayers, MaxPool2dMatchesPyTorch) {
  expectLayerMatches(MaxPool2d(MaxPool2dOptions(3).stride(2).padding(1)),
                     "max_pool2d_k3_s2_p1_2x3x17x17");
}

TEST(ConvolutionLayers, AvgPool2dMatchesPyTorch) {
  expectLayerMatches(
      AvgPool2d(
          AvgPool2dOptions(3).stride(2).padding(1).count_include_pad(false)),
      "avg_pool2d_exclude_pad");
}

TEST(ConvolutionLayers, AdaptiveAvgPool2dMatchesPyTorch) {
  expectLayerMatches(AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions({5, 7})),
                     "adaptive_avg_pool2d_17x17_to_5x7");
}

TEST(ConvolutionLayers, UpsampleMatchesPyTorch) {
  expectLayerMatches(Upsample(UpsampleOptions()
                                  .scale_factor(std::vector<double>{1.5})
                                  .mode(kBilinear)
                                  .align_corners(false)),
                     "interpolate_bilinear_scale1_5", kBilinearTol);
}

} // namespace

std::vector<OpCase> convolutionOpCases() { return convolutionCases(); }

} // namespace nn::testing
