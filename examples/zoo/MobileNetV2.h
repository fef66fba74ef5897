//===- MobileNetV2.h - torchvision's MobileNetV2 ----------------*- C++ -*-===//
//
// torchvision.models.mobilenet_v2 (0.14) written with nn, under its module
// names: Conv2dNormActivation (a Sequential of convolution, BatchNorm and
// ReLU6) and InvertedResidual blocks (1x1 expansion, 3x3 depthwise, 1x1
// linear projection, plus the input where the shape allows).
//
//   auto model = nn::zoo::mobilenet_v2();
//   nn::load(*model, "mobilenet_v2.safetensors", /*strict=*/true);
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_ZOO_MOBILENETV2_H
#define NN_EXAMPLES_ZOO_MOBILENETV2_H

#include "nn/nn.h"

namespace nn::zoo {

/// torchvision.ops.Conv2dNormActivation with BatchNorm2d and an activation
/// (ReLU6 in MobileNetV2, SiLU in EfficientNet, ReLU by default, or none),
/// `(kernel_size - 1) / 2` padding and no convolution bias.
class Conv2dNormActivationImpl
    : public Cloneable<Conv2dNormActivationImpl, SequentialImpl> {
public:
  enum class Activation { ReLU, ReLU6, SiLU, None };
  Conv2dNormActivationImpl(int64_t in_channels, int64_t out_channels,
                           int64_t kernel_size = 3, int64_t stride = 1,
                           int64_t groups = 1,
                           Activation activation = Activation::ReLU);
};
NN_MODULE(Conv2dNormActivation);

/// MobileNetV2's block. `conv` holds the layers; the input is added back
/// when the block keeps the shape (stride 1, as many channels out as in).
class InvertedResidualImpl : public Cloneable<InvertedResidualImpl> {
public:
  InvertedResidualImpl(int64_t inp, int64_t oup, int64_t stride,
                       int64_t expand_ratio);
  Tensor forward(const Tensor &x);

  Sequential conv{nullptr};

private:
  bool use_res_connect_;
};
NN_MODULE(InvertedResidual);

class MobileNetV2Impl : public Cloneable<MobileNetV2Impl> {
public:
  explicit MobileNetV2Impl(int64_t num_classes = 1000, double dropout = 0.2);
  Tensor forward(const Tensor &x);

  Sequential features{nullptr}, classifier{nullptr};
};
NN_MODULE(MobileNetV2);

/// torchvision.models.mobilenet_v2() (width multiplier 1.0).
inline MobileNetV2 mobilenet_v2(int64_t num_classes = 1000) {
  return MobileNetV2(num_classes);
}

} // namespace nn::zoo

#endif // NN_EXAMPLES_ZOO_MOBILENETV2_H
