//===- TwoBranchModel.h - Two Linear branches, summed -----------*- C++ -*-===//
//
// left(x) + right(x): two modules reading one input, joined by an add. The
// PyTorch twin is in tests/reference/generate_module_goldens.py.
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_MODELS_TWOBRANCHMODEL_H
#define NN_EXAMPLES_MODELS_TWOBRANCHMODEL_H

#include "nn/nn.h"

namespace nn::models {

class TwoBranchModelImpl : public Cloneable<TwoBranchModelImpl> {
public:
  TwoBranchModelImpl() : Cloneable("TwoBranchModel") {
    left = register_module("left", Linear(16, 8));
    right = register_module("right", Linear(16, 8));
  }

  Tensor forward(const Tensor &x) { return left(x) + right(x); }

  Linear left{nullptr}, right{nullptr};
};
NN_MODULE(TwoBranchModel);

} // namespace nn::models

#endif // NN_EXAMPLES_MODELS_TWOBRANCHMODEL_H
