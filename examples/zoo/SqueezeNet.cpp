//===- SqueezeNet.cpp - torchvision's SqueezeNet 1.1 ----------------------===//

#include "zoo/SqueezeNet.h"

namespace nn::zoo {

FireImpl::FireImpl(int64_t inplanes, int64_t squeeze_planes,
                   int64_t expand1x1_planes, int64_t expand3x3_planes)
    : Cloneable("Fire") {
  squeeze = register_module("squeeze",
                            Conv2d(Conv2dOptions(inplanes, squeeze_planes, 1)));
  squeeze_activation = register_module("squeeze_activation", ReLU(true));
  expand1x1 = register_module(
      "expand1x1", Conv2d(Conv2dOptions(squeeze_planes, expand1x1_planes, 1)));
  expand1x1_activation = register_module("expand1x1_activation", ReLU(true));
  expand3x3 = register_module(
      "expand3x3",
      Conv2d(Conv2dOptions(squeeze_planes, expand3x3_planes, 3).padding(1)));
  expand3x3_activation = register_module("expand3x3_activation", ReLU(true));
}

Tensor FireImpl::forward(const Tensor &x) {
  Tensor s = squeeze_activation(squeeze(x));
  return F::cat(
      {expand1x1_activation(expand1x1(s)), expand3x3_activation(expand3x3(s))},
      1);
}

SqueezeNetImpl::SqueezeNetImpl(int64_t num_classes, double dropout)
    : Cloneable("SqueezeNet") {
  auto pool = [] {
    return MaxPool2d(MaxPool2dOptions(3).stride(2).ceil_mode(true));
  };
  features = register_module(
      "features",
      Sequential(Conv2d(Conv2dOptions(3, 64, 3).stride(2)), ReLU(true), pool(),
                 Fire(64, 16, 64, 64), Fire(128, 16, 64, 64), pool(),
                 Fire(128, 32, 128, 128), Fire(256, 32, 128, 128), pool(),
                 Fire(256, 48, 192, 192), Fire(384, 48, 192, 192),
                 Fire(384, 64, 256, 256), Fire(512, 64, 256, 256)));
  classifier = register_module(
      "classifier",
      Sequential(Dropout(dropout), Conv2d(Conv2dOptions(512, num_classes, 1)),
                 ReLU(true),
                 AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions({1, 1}))));
}

Tensor SqueezeNetImpl::forward(const Tensor &x) {
  return F::flatten(classifier(features(x)), 1);
}

} // namespace nn::zoo
