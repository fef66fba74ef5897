//===- ConvNet.h - A plain convolutional Sequential -------------*- C++ -*-===//
//
// The classic layer stack in one Sequential: conv, BatchNorm, ReLU,
// max-pooling, bilinear upsampling (interpolate), a strided conv, flatten and
// a linear head. It is the seed model that puts pooling and interpolation
// through the whole pipeline (and BatchNorm in training mode, where nothing
// folds it). The PyTorch twin is in tests/reference/generate_module_goldens.py.
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_MODELS_CONVNET_H
#define NN_EXAMPLES_MODELS_CONVNET_H

#include "nn/nn.h"

namespace nn::models {

class ConvNetImpl : public Cloneable<ConvNetImpl> {
public:
  ConvNetImpl() : Cloneable("ConvNet") {
    // 2x3x8x8 → conv 2x8x8x8 → pool 2x8x4x4 → upsample 2x8x8x8 →
    // strided conv 2x4x4x4 → flatten 2x64 → linear 2x10.
    layers = register_module(
        "layers",
        Sequential({{"0", Conv2d(Conv2dOptions(3, 8, 3).padding(1))},
                    {"1", BatchNorm2d(8)},
                    {"2", ReLU()},
                    {"3", MaxPool2d(MaxPool2dOptions(2))},
                    {"4", Upsample(UpsampleOptions()
                                       .scale_factor(std::vector<double>{2.0})
                                       .mode(InterpolateMode::bilinear)
                                       .align_corners(false))},
                    {"5", Conv2d(Conv2dOptions(8, 4, 3).stride(2).padding(1))},
                    {"6", Flatten()},
                    {"7", Linear(64, 10)}}));
  }

  Tensor forward(const Tensor &x) { return layers(x); }

  Sequential layers{nullptr};
};
NN_MODULE(ConvNet);

} // namespace nn::models

#endif // NN_EXAMPLES_MODELS_CONVNET_H
