//===- MobileNetV2.cpp - torchvision's MobileNetV2 ------------------------===//

#include "zoo/MobileNetV2.h"

namespace nn::zoo {

Conv2dNormActivationImpl::Conv2dNormActivationImpl(
    int64_t in_channels, int64_t out_channels, int64_t kernel_size,
    int64_t stride, int64_t groups, Activation activation)
    : Cloneable("Conv2dNormActivation") {
  push_back(Conv2d(Conv2dOptions(in_channels, out_channels, kernel_size)
                       .stride(stride)
                       .padding((kernel_size - 1) / 2)
                       .groups(groups)
                       .bias(false)));
  push_back(BatchNorm2d(out_channels));
  switch (activation) {
  case Activation::ReLU:
    push_back(ReLU(true));
    break;
  case Activation::ReLU6:
    push_back(ReLU6(true));
    break;
  case Activation::SiLU:
    push_back(SiLU(true));
    break;
  case Activation::None:
    break;
  }
}

InvertedResidualImpl::InvertedResidualImpl(int64_t inp, int64_t oup,
                                           int64_t stride, int64_t expand_ratio)
    : Cloneable("InvertedResidual"),
      use_res_connect_(stride == 1 && inp == oup) {
  using Act = Conv2dNormActivationImpl::Activation;
  int64_t hidden = inp * expand_ratio;
  Sequential layers;
  if (expand_ratio != 1)
    layers->push_back(Conv2dNormActivation(inp, hidden, 1, 1, 1, Act::ReLU6));
  layers->push_back(
      Conv2dNormActivation(hidden, hidden, 3, stride, hidden, Act::ReLU6));
  layers->push_back(Conv2d(Conv2dOptions(hidden, oup, 1).bias(false)));
  layers->push_back(BatchNorm2d(oup));
  conv = register_module("conv", layers);
}

Tensor InvertedResidualImpl::forward(const Tensor &x) {
  return use_res_connect_ ? x + conv(x) : conv(x);
}

MobileNetV2Impl::MobileNetV2Impl(int64_t num_classes, double dropout)
    : Cloneable("MobileNetV2") {
  using Act = Conv2dNormActivationImpl::Activation;
  // t (expansion), c (channels), n (blocks), s (first block's stride).
  static constexpr int64_t kSetting[][4] = {
      {1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
      {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  constexpr int64_t kLastChannel = 1280;
  int64_t input_channel = 32;
  Sequential layers;
  layers->push_back(
      Conv2dNormActivation(3, input_channel, 3, 2, 1, Act::ReLU6));
  for (const auto &[t, c, n, s] : kSetting)
    for (int64_t i = 0; i < n; ++i) {
      layers->push_back(InvertedResidual(input_channel, c, i == 0 ? s : 1, t));
      input_channel = c;
    }
  layers->push_back(
      Conv2dNormActivation(input_channel, kLastChannel, 1, 1, 1, Act::ReLU6));
  features = register_module("features", layers);
  classifier = register_module(
      "classifier",
      Sequential(Dropout(dropout), Linear(kLastChannel, num_classes)));
}

Tensor MobileNetV2Impl::forward(const Tensor &x) {
  Tensor y = F::adaptive_avg_pool2d(features(x),
                                    F::AdaptiveAvgPool2dFuncOptions({1, 1}));
  return classifier(F::flatten(y, 1));
}

} // namespace nn::zoo
