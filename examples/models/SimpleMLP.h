//===- SimpleMLP.h - The demo model ---------------------------*- C++ -*-===//
//
// 784 → 256 → 256 → 10 with ReLU and Dropout(0.1), the model of the demo,
// the end-to-end tests and the MLP benchmark. The PyTorch twin (same
// state_dict names and order) is in tests/reference/generate_goldens.py.
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_MODELS_SIMPLEMLP_H
#define NN_EXAMPLES_MODELS_SIMPLEMLP_H

#include "nn/nn.h"

namespace nn::models {

class SimpleMLPImpl : public Cloneable<SimpleMLPImpl> {
public:
  SimpleMLPImpl() : Cloneable("SimpleMLP") {
    fc1 = register_module("fc1", Linear(784, 256));
    fc2 = register_module("fc2", Linear(256, 256));
    fc3 = register_module("fc3", Linear(256, 10));
    dropout = register_module("dropout", Dropout(0.1));
  }

  Tensor forward(const Tensor &input) {
    Tensor x = dropout(F::relu(fc1(input)));
    x = dropout(F::relu(fc2(x)));
    return fc3(x);
  }

  Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
  Dropout dropout{nullptr};
};
NN_MODULE(SimpleMLP);

} // namespace nn::models

#endif // NN_EXAMPLES_MODELS_SIMPLEMLP_H
