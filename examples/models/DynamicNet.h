//===- DynamicNet.h - Python control flow, unrolled -------------*- C++ -*-===//
//
// PyTorch's classic weight-sharing net: the middle layers of a ModuleList
// are applied `repeats` times in turn. The loop is ordinary C++; tracing
// unrolls it, so the graph has repeats middle linears sharing two weights.
// (PyTorch's tutorial draws the count at random on each call; a traced
// graph fixes it, so here it is a constructor argument.) The PyTorch twin
// is in tests/reference/generate_module_goldens.py.
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_MODELS_DYNAMICNET_H
#define NN_EXAMPLES_MODELS_DYNAMICNET_H

#include "nn/nn.h"

namespace nn::models {

class DynamicNetImpl : public Cloneable<DynamicNetImpl> {
public:
  explicit DynamicNetImpl(int repeats = 3)
      : Cloneable("DynamicNet"), repeats(repeats) {
    input_linear = register_module("input_linear", Linear(8, 16));
    middle =
        register_module("middle", ModuleList(Linear(16, 16), Linear(16, 16)));
    output_linear = register_module("output_linear", Linear(16, 4));
  }

  Tensor forward(const Tensor &x) {
    Tensor h = F::relu(input_linear(x));
    for (int i = 0; i < repeats; ++i)
      h = F::relu(middle[i % middle->size()](h));
    return output_linear(h);
  }

  int repeats;
  Linear input_linear{nullptr};
  ModuleList middle{nullptr};
  Linear output_linear{nullptr};
};
NN_MODULE(DynamicNet);

} // namespace nn::models

#endif // NN_EXAMPLES_MODELS_DYNAMICNET_H
