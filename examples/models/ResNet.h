//===- ResNet.h - A small residual network ----------------------*- C++ -*-===//
//
// ResidualBlock is torchvision's BasicBlock without downsampling: conv3x3,
// BatchNorm, ReLU, conv3x3, BatchNorm, plus the identity, ReLU (one ReLU
// module used twice, as torchvision does). ResNet is a stem (conv-bn-relu),
// two blocks, adaptive average pooling to 1x1, flatten and a linear head:
// the seed model of nn-fold-batchnorm and nn-fuse (in eval every conv+bn+relu
// becomes one fused convolution). The PyTorch twin is in
// tests/reference/generate_module_goldens.py.
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_MODELS_RESNET_H
#define NN_EXAMPLES_MODELS_RESNET_H

#include "nn/nn.h"

namespace nn::models {

/// A 3x3 convolution keeping the spatial size, without bias (BatchNorm
/// follows).
inline Conv2d conv3x3(int64_t in, int64_t out) {
  return Conv2d(Conv2dOptions(in, out, 3).padding(1).bias(false));
}

class ResidualBlockImpl : public Cloneable<ResidualBlockImpl> {
public:
  explicit ResidualBlockImpl(int64_t channels) : Cloneable("ResidualBlock") {
    conv1 = register_module("conv1", conv3x3(channels, channels));
    bn1 = register_module("bn1", BatchNorm2d(channels));
    relu = register_module("relu", ReLU());
    conv2 = register_module("conv2", conv3x3(channels, channels));
    bn2 = register_module("bn2", BatchNorm2d(channels));
  }

  Tensor forward(const Tensor &x) {
    Tensor out = relu(bn1(conv1(x)));
    return relu(bn2(conv2(out)) + x);
  }

  Conv2d conv1{nullptr}, conv2{nullptr};
  BatchNorm2d bn1{nullptr}, bn2{nullptr};
  ReLU relu{nullptr};
};
NN_MODULE(ResidualBlock);

class ResNetImpl : public Cloneable<ResNetImpl> {
public:
  explicit ResNetImpl(int64_t channels = 8, int64_t num_classes = 10)
      : Cloneable("ResNet") {
    stem = register_module("stem", Sequential({{"0", conv3x3(3, channels)},
                                               {"1", BatchNorm2d(channels)},
                                               {"2", ReLU()}}));
    layer1 = register_module("layer1", ResidualBlock(channels));
    layer2 = register_module("layer2", ResidualBlock(channels));
    pool =
        register_module("pool", AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions(1)));
    flatten = register_module("flatten", Flatten());
    fc = register_module("fc", Linear(channels, num_classes));
  }

  Tensor forward(const Tensor &x) {
    return fc(flatten(pool(layer2(layer1(stem(x))))));
  }

  Sequential stem{nullptr};
  ResidualBlock layer1{nullptr}, layer2{nullptr};
  AdaptiveAvgPool2d pool{nullptr};
  Flatten flatten{nullptr};
  Linear fc{nullptr};
};
NN_MODULE(ResNet);

} // namespace nn::models

#endif // NN_EXAMPLES_MODELS_RESNET_H
