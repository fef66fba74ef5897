//===- ConvolutionLayersTest.cpp - Conv, pooling and upsampling layers ----===//
//
// state_dict keys and shapes, printed reprs and initialization bounds of the
// convolution, pooling and upsampling layers, against what PyTorch 1.13
// prints for the same options (python3 -c "import torch;
// print(torch.nn.X(...))").
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "nn/nn.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <sstream>

using namespace nn;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

using nn::testing::repr;

/// "weight:32x3x3x3" for each state_dict entry, in order.
std::vector<std::string> stateShapes(const Module &m) {
  std::vector<std::string> out;
  StateDict state = m.state_dict();
  for (const std::string &key : state.keys())
    out.push_back(key + ":" + shape_str(state.at(key).shape()));
  return out;
}

class ConvolutionLayersTest : public ::testing::Test {
protected:
  void SetUp() override { manual_seed(0); }
};

TEST_F(ConvolutionLayersTest, Conv2dMatchesPyTorch) {
  Conv2d conv(Conv2dOptions(3, 32, 3).padding(1));
  EXPECT_THAT(stateShapes(*conv), ElementsAre("weight:32x3x3x3", "bias:32"));
  EXPECT_EQ(repr(conv),
            "Conv2d(3, 32, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))");
}

TEST_F(ConvolutionLayersTest, Conv2dGroupedWithoutBiasMatchesPyTorch) {
  Conv2d conv(Conv2dOptions(4, 8, {3, 5})
                  .stride({2, 1})
                  .padding({1, 2})
                  .dilation(2)
                  .groups(2)
                  .bias(false));
  EXPECT_THAT(stateShapes(*conv), ElementsAre("weight:8x2x3x5"));
  EXPECT_EQ(repr(conv),
            "Conv2d(4, 8, kernel_size=(3, 5), stride=(2, 1), "
            "padding=(1, 2), dilation=(2, 2), groups=2, bias=False)");
}

TEST_F(ConvolutionLayersTest, Conv2dPaddingModesMatchPyTorch) {
  Conv2d same(Conv2dOptions(3, 3, 3).padding(kSame).groups(3).bias(false));
  EXPECT_THAT(stateShapes(*same), ElementsAre("weight:3x1x3x3"));
  EXPECT_EQ(repr(same), "Conv2d(3, 3, kernel_size=(3, 3), stride=(1, 1), "
                        "padding=same, groups=3, bias=False)");
  Conv2d valid(Conv2dOptions(3, 4, 3).padding(kValid));
  EXPECT_EQ(repr(valid),
            "Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1), padding=valid)");
}

TEST_F(ConvolutionLayersTest, Conv1dMatchesPyTorch) {
  Conv1d conv(Conv1dOptions(3, 4, 3).padding(1).dilation(2));
  EXPECT_THAT(stateShapes(*conv), ElementsAre("weight:4x3x3", "bias:4"));
  EXPECT_EQ(repr(conv), "Conv1d(3, 4, kernel_size=(3,), stride=(1,), "
                        "padding=(1,), dilation=(2,))");
  Conv1d grouped(Conv1dOptions(6, 4, 5).stride(2).groups(2).bias(false));
  EXPECT_THAT(stateShapes(*grouped), ElementsAre("weight:4x3x5"));
  EXPECT_EQ(repr(grouped), "Conv1d(6, 4, kernel_size=(5,), stride=(2,), "
                           "groups=2, bias=False)");
}

TEST_F(ConvolutionLayersTest, ConvTranspose2dMatchesPyTorch) {
  ConvTranspose2d up(
      ConvTranspose2dOptions(4, 2, 3).stride(2).padding(1).output_padding(1));
  EXPECT_THAT(stateShapes(*up), ElementsAre("weight:4x2x3x3", "bias:2"));
  EXPECT_EQ(repr(up),
            "ConvTranspose2d(4, 2, kernel_size=(3, 3), stride=(2, 2), "
            "padding=(1, 1), output_padding=(1, 1))");
  ConvTranspose2d grouped(
      ConvTranspose2dOptions(4, 6, {3, 2}).groups(2).dilation(2).bias(false));
  EXPECT_THAT(stateShapes(*grouped), ElementsAre("weight:4x3x3x2"));
  EXPECT_EQ(repr(grouped), "ConvTranspose2d(4, 6, kernel_size=(3, 2), "
                           "stride=(1, 1), dilation=(2, 2), groups=2, "
                           "bias=False)");
}

TEST_F(ConvolutionLayersTest, Conv3dMatchesPyTorch) {
  Conv3d conv(Conv3dOptions(2, 4, {1, 3, 3})
                  .stride({1, 2, 2})
                  .padding({0, 1, 1})
                  .bias(false));
  EXPECT_THAT(stateShapes(*conv), ElementsAre("weight:4x2x1x3x3"));
  EXPECT_EQ(repr(conv), "Conv3d(2, 4, kernel_size=(1, 3, 3), stride=(1, 2, 2), "
                        "padding=(0, 1, 1), bias=False)");
  Conv3d same(Conv3dOptions(4, 4, 3).padding(kSame).groups(4));
  EXPECT_THAT(stateShapes(*same), ElementsAre("weight:4x1x3x3x3", "bias:4"));
  EXPECT_EQ(repr(same), "Conv3d(4, 4, kernel_size=(3, 3, 3), "
                        "stride=(1, 1, 1), padding=same, groups=4)");
  EXPECT_THROW(Conv3d(Conv3dOptions(4, 4, 3).padding(kSame).stride(2)), Error);
}

// nn-optimize computes a 3-D convolution as 2-D ones over the batch of
// depth slices (one per kernel depth offset), unless told not to.
TEST_F(ConvolutionLayersTest, Conv3dOptimizesIntoTwoDConvolutions) {
  Conv3d conv(Conv3dOptions(2, 4, 3).padding(1));
  const std::string conv3d = "-> tensor<1x4x4x6x6xf32>";
  const std::string conv2d = "-> tensor<4x4x6x6xf32>";
  // The nn.conv lines of `ir` whose result type ends `result`.
  auto count = [](const std::string &ir, const std::string &result) {
    size_t n = 0;
    std::istringstream lines(ir);
    for (std::string line; std::getline(lines, line);)
      n += line.find("nn.conv ") != std::string::npos &&
           line.find(result) != std::string::npos;
    return n;
  };
  TracedModule traced = trace(conv, {TensorSpec({1, 2, 4, 6, 6})});
  OptimizeOptions keep;
  keep.decompose_conv3d = false;
  std::string kept = traced.clone().optimize(keep).to_string();
  EXPECT_EQ(count(kept, conv3d), 1u) << kept;
  EXPECT_EQ(count(kept, conv2d), 0u) << kept;
  std::string split = traced.optimize().to_string();
  EXPECT_EQ(count(split, conv3d), 0u) << split;
  EXPECT_EQ(count(split, conv2d), 3u) << split;
}

TEST_F(ConvolutionLayersTest, ConvTranspose1dAnd3dMatchPyTorch) {
  ConvTranspose3d up(
      ConvTranspose3dOptions(4, 2, 3).stride(2).padding(1).output_padding(1));
  EXPECT_THAT(stateShapes(*up), ElementsAre("weight:4x2x3x3x3", "bias:2"));
  EXPECT_EQ(repr(up), "ConvTranspose3d(4, 2, kernel_size=(3, 3, 3), "
                      "stride=(2, 2, 2), padding=(1, 1, 1), "
                      "output_padding=(1, 1, 1))");
  ConvTranspose1d grouped(
      ConvTranspose1dOptions(3, 6, 4).stride(3).dilation(2).groups(3).bias(
          false));
  EXPECT_THAT(stateShapes(*grouped), ElementsAre("weight:3x2x4"));
  EXPECT_EQ(repr(grouped), "ConvTranspose1d(3, 6, kernel_size=(4,), "
                           "stride=(3,), dilation=(2,), groups=3, bias=False)");
}

TEST_F(ConvolutionLayersTest, ConvInitializationFollowsPyTorchBounds) {
  // kaiming_uniform_(a=√5) gives U(±1/√fan_in) for the weight as well.
  Conv2d conv(Conv2dOptions(3, 8, 3));
  double bound = 1.0 / std::sqrt(27.0);
  for (const Tensor *t : {&conv->weight, &conv->bias}) {
    double largest = 0;
    for (int64_t i = 0; i < t->numel(); ++i)
      largest = std::max(largest, std::abs(t->item_as_double(i)));
    EXPECT_LE(largest, bound);
    EXPECT_GT(largest, 0.5 * bound);
  }
}

TEST_F(ConvolutionLayersTest, ConvRejectsChannelsNotDivisibleByGroups) {
  try {
    Conv2d conv(Conv2dOptions(3, 4, 3).groups(2));
    FAIL() << "expected nn::Error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(),
                 "Conv2d: in_channels 3 must be divisible by groups 2");
  }
}

TEST_F(ConvolutionLayersTest, MaxPool2dMatchesPyTorch) {
  MaxPool2d pool(MaxPool2dOptions(2));
  EXPECT_TRUE(pool->state_dict().keys().empty());
  EXPECT_EQ(repr(pool), "MaxPool2d(kernel_size=2, stride=2, padding=0, "
                        "dilation=1, ceil_mode=False)");
  MaxPool2d other(
      MaxPool2dOptions(3).stride(2).padding(1).dilation(2).ceil_mode(true));
  EXPECT_EQ(repr(other), "MaxPool2d(kernel_size=3, stride=2, padding=1, "
                         "dilation=2, ceil_mode=True)");
  MaxPool2d rect(MaxPool2dOptions({1, 3}).stride({1, 2}));
  EXPECT_EQ(repr(rect), "MaxPool2d(kernel_size=(1, 3), stride=(1, 2), "
                        "padding=0, dilation=1, ceil_mode=False)");
  // Printed as given, as PyTorch prints MaxPool2d((2, 2)).
  MaxPool2d square(MaxPool2dOptions({2, 2}).padding({0, 0}));
  EXPECT_EQ(repr(square), "MaxPool2d(kernel_size=(2, 2), stride=(2, 2), "
                          "padding=(0, 0), dilation=1, ceil_mode=False)");
}

TEST_F(ConvolutionLayersTest, AvgPool2dMatchesPyTorch) {
  AvgPool2d pool(AvgPool2dOptions(2));
  EXPECT_TRUE(pool->state_dict().keys().empty());
  EXPECT_EQ(repr(pool), "AvgPool2d(kernel_size=2, stride=2, padding=0)");
  AvgPool2d other(AvgPool2dOptions(3)
                      .stride(2)
                      .padding(1)
                      .ceil_mode(true)
                      .count_include_pad(false)
                      .divisor_override(3));
  EXPECT_EQ(repr(other), "AvgPool2d(kernel_size=3, stride=2, padding=1)");
}

TEST_F(ConvolutionLayersTest, AdaptiveAvgPool2dMatchesPyTorch) {
  EXPECT_EQ(repr(AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions(3))),
            "AdaptiveAvgPool2d(output_size=3)");
  EXPECT_EQ(repr(AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions({5, 7}))),
            "AdaptiveAvgPool2d(output_size=(5, 7))");
  // torchvision's ResNet: nn.AdaptiveAvgPool2d((1, 1)).
  EXPECT_EQ(repr(AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions({1, 1}))),
            "AdaptiveAvgPool2d(output_size=(1, 1))");
}

// torch 1.13's reprs of the 1-D and 3-D layers (AvgPool1d stores its
// arguments as 1-tuples, so it prints "(3,)").
TEST_F(ConvolutionLayersTest, OneAndThreeDimensionalPoolingPrintsAsPyTorch) {
  EXPECT_EQ(repr(MaxPool1d(MaxPool1dOptions(3).stride(2).padding(1))),
            "MaxPool1d(kernel_size=3, stride=2, padding=1, dilation=1, "
            "ceil_mode=False)");
  EXPECT_EQ(
      repr(MaxPool3d(
          MaxPool3dOptions({2, 1, 2}).stride(1).padding({1, 0, 1}).ceil_mode(
              true))),
      "MaxPool3d(kernel_size=(2, 1, 2), stride=1, padding=(1, 0, 1), "
      "dilation=1, ceil_mode=True)");
  EXPECT_EQ(repr(AvgPool1d(AvgPool1dOptions(3).stride(2).padding(1))),
            "AvgPool1d(kernel_size=(3,), stride=(2,), padding=(1,))");
  EXPECT_EQ(
      repr(AvgPool3d(AvgPool3dOptions({2, 2, 1}).stride(1).padding({1, 1, 0}))),
      "AvgPool3d(kernel_size=(2, 2, 1), stride=1, padding=(1, 1, 0))");
  EXPECT_EQ(repr(AdaptiveAvgPool1d(AdaptiveAvgPool1dOptions(3))),
            "AdaptiveAvgPool1d(output_size=3)");
  EXPECT_EQ(repr(AdaptiveAvgPool3d(AdaptiveAvgPool3dOptions({1, 2, 3}))),
            "AdaptiveAvgPool3d(output_size=(1, 2, 3))");
  EXPECT_EQ(repr(AdaptiveAvgPool3d(AdaptiveAvgPool3dOptions(1))),
            "AdaptiveAvgPool3d(output_size=1)");
}

TEST_F(ConvolutionLayersTest, PoolingLayersCheckTheirInputRank) {
  // A 4-D input to MaxPool3d is PyTorch's unbatched [C, D, H, W], which nn
  // does not take: the error says what it expects and what it got.
  MaxPool3d pool(MaxPool3dOptions(2));
  try {
    trace(pool, {TensorSpec({2, 4, 4, 4})});
    FAIL() << "expected nn::Error";
  } catch (const Error &e) {
    EXPECT_THAT(e.what(),
                HasSubstr("<root>: max_pool3d: input must be 5-D (batched), "
                          "got 2x4x4x4"));
  }
}

TEST_F(ConvolutionLayersTest, UpsampleMatchesPyTorch) {
  EXPECT_EQ(
      repr(Upsample(UpsampleOptions().scale_factor(std::vector<double>{2}))),
      "Upsample(scale_factor=2.0, mode=nearest)");
  EXPECT_EQ(repr(Upsample(UpsampleOptions()
                              .size(std::vector<int64_t>{14, 14})
                              .mode(kBilinear)
                              .align_corners(true))),
            "Upsample(size=(14, 14), mode=bilinear)");
  EXPECT_EQ(repr(Upsample(UpsampleOptions().size(std::vector<int64_t>{5}))),
            "Upsample(size=5, mode=nearest)");
  EXPECT_EQ(repr(Upsample(UpsampleOptions()
                              .scale_factor(std::vector<double>{2, 1.5})
                              .mode(kBilinear))),
            "Upsample(scale_factor=(2.0, 1.5), mode=bilinear)");
}

TEST_F(ConvolutionLayersTest, SamePaddingWithStrideIsRefused) {
  try {
    Conv2d conv(Conv2dOptions(3, 4, 3).padding(kSame).stride(2));
    FAIL() << "expected nn::Error";
  } catch (const Error &e) {
    EXPECT_THAT(e.what(), HasSubstr("padding='same' is not supported for "
                                    "strided convolutions"));
  }
}

TEST_F(ConvolutionLayersTest, TracingAShapeErrorNamesTheModulePath) {
  Sequential model(Conv2d(Conv2dOptions(3, 8, 3)),
                   MaxPool2d(MaxPool2dOptions(2)));
  try {
    trace(model, {TensorSpec({1, 4, 7, 7})});
    FAIL() << "expected nn::Error";
  } catch (const Error &e) {
    EXPECT_THAT(e.what(),
                HasSubstr("0: conv2d: input has 4 channels, weight expects 3"));
  }
}

} // namespace
