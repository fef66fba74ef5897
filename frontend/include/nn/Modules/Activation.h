//===- Activation.h - Activation layers -------------------------*- C++ -*-===//
#ifndef NN_MODULES_ACTIVATION_H
#define NN_MODULES_ACTIVATION_H

#include "nn/Frontend/ModuleHolder.h"

namespace nn {

/// max(x, 0). See https://pytorch.org/docs/stable/generated/torch.nn.ReLU.html
class ReLUImpl : public Cloneable<ReLUImpl> {
public:
  ReLUImpl() : Cloneable("ReLU") {}
  Tensor forward(const Tensor &input);
};
NN_MODULE(ReLU);

} // namespace nn

#endif // NN_MODULES_ACTIVATION_H
