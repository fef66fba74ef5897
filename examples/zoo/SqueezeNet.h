//===- SqueezeNet.h - torchvision's SqueezeNet 1.1 --------------*- C++ -*-===//
//
// torchvision.models.squeezenet1_1 (0.14) written with nn, under its module
// names: Fire modules (a 1x1 squeeze, then 1x1 and 3x3 expansions
// concatenated along the channels) and a convolutional classifier.
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_ZOO_SQUEEZENET_H
#define NN_EXAMPLES_ZOO_SQUEEZENET_H

#include "nn/nn.h"

namespace nn::zoo {

class FireImpl : public Cloneable<FireImpl> {
public:
  FireImpl(int64_t inplanes, int64_t squeeze_planes, int64_t expand1x1_planes,
           int64_t expand3x3_planes);
  Tensor forward(const Tensor &x);

  Conv2d squeeze{nullptr}, expand1x1{nullptr}, expand3x3{nullptr};
  ReLU squeeze_activation{nullptr}, expand1x1_activation{nullptr},
      expand3x3_activation{nullptr};
};
NN_MODULE(Fire);

class SqueezeNetImpl : public Cloneable<SqueezeNetImpl> {
public:
  explicit SqueezeNetImpl(int64_t num_classes = 1000, double dropout = 0.5);
  Tensor forward(const Tensor &x);

  Sequential features{nullptr}, classifier{nullptr};
};
NN_MODULE(SqueezeNet);

/// torchvision.models.squeezenet1_1().
inline SqueezeNet squeezenet1_1(int64_t num_classes = 1000) {
  return SqueezeNet(num_classes);
}

} // namespace nn::zoo

#endif // NN_EXAMPLES_ZOO_SQUEEZENET_H
