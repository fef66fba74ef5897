//===- EfficientNet.h - torchvision's EfficientNet-B0 -----------*- C++ -*-===//
//
// torchvision.models.efficientnet_b0 (0.14) written with nn, under its
// module names: MBConv blocks (1x1 expansion, depthwise convolution,
// squeeze-and-excitation, 1x1 projection, stochastic depth on the residual)
// with SiLU activations, in seven stages.
//
//   auto model = nn::zoo::efficientnet_b0();
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_ZOO_EFFICIENTNET_H
#define NN_EXAMPLES_ZOO_EFFICIENTNET_H

#include "zoo/MobileNetV2.h"

#include "nn/nn.h"

#include <string>

namespace nn::zoo {

/// torchvision.ops.StochasticDepth: in training, each row (mode "row") or
/// the whole batch (mode "batch") is zeroed with probability p and the rest
/// scaled by 1 / (1 - p); the identity in eval.
class StochasticDepthImpl : public Cloneable<StochasticDepthImpl> {
public:
  StochasticDepthImpl(double p, std::string mode);
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  double p;
  std::string mode;
};
NN_MODULE(StochasticDepth);

/// torchvision.ops.SqueezeExcitation: the input scaled per channel by
/// sigmoid(fc2(activation(fc1(avgpool(input))))).
class SqueezeExcitationImpl : public Cloneable<SqueezeExcitationImpl> {
public:
  SqueezeExcitationImpl(int64_t input_channels, int64_t squeeze_channels);
  Tensor forward(const Tensor &input);

  AdaptiveAvgPool2d avgpool{nullptr};
  Conv2d fc1{nullptr}, fc2{nullptr};
  SiLU activation{nullptr};
  Sigmoid scale_activation{nullptr};
};
NN_MODULE(SqueezeExcitation);

/// EfficientNet's block: `block` holds the layers; the input is added back
/// (through stochastic depth) when the block keeps the shape.
class MBConvImpl : public Cloneable<MBConvImpl> {
public:
  MBConvImpl(int64_t expand_ratio, int64_t kernel, int64_t stride,
             int64_t input_channels, int64_t out_channels,
             double stochastic_depth_prob);
  Tensor forward(const Tensor &input);

  Sequential block{nullptr};
  StochasticDepth stochastic_depth{nullptr};

private:
  bool use_res_connect_;
};
NN_MODULE(MBConv);

class EfficientNetImpl : public Cloneable<EfficientNetImpl> {
public:
  explicit EfficientNetImpl(int64_t num_classes = 1000, double dropout = 0.2,
                            double stochastic_depth_prob = 0.2);
  Tensor forward(const Tensor &x);

  Sequential features{nullptr};
  AdaptiveAvgPool2d avgpool{nullptr};
  Sequential classifier{nullptr};
};
NN_MODULE(EfficientNet);

/// torchvision.models.efficientnet_b0() (width and depth multipliers 1).
inline EfficientNet efficientnet_b0(int64_t num_classes = 1000) {
  return EfficientNet(num_classes);
}

} // namespace nn::zoo

#endif // NN_EXAMPLES_ZOO_EFFICIENTNET_H
