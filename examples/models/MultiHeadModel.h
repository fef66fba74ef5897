//===- MultiHeadModel.h - A trunk and a ModuleDict of heads -----*- C++ -*-===//
//
// A shared trunk, then one Linear head and one learned offset per task, kept
// in a ModuleDict and a ParameterDict; forward returns one output per head,
// in the dict's order. The PyTorch twin is in
// tests/reference/generate_module_goldens.py.
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_MODELS_MULTIHEADMODEL_H
#define NN_EXAMPLES_MODELS_MULTIHEADMODEL_H

#include "nn/nn.h"

namespace nn::models {

class MultiHeadModelImpl : public Cloneable<MultiHeadModelImpl> {
public:
  MultiHeadModelImpl() : Cloneable("MultiHeadModel") {
    trunk = register_module("trunk", Sequential(Linear(16, 32), ReLU()));
    heads = register_module("heads", ModuleDict({{"classify", Linear(32, 10)},
                                                 {"regress", Linear(32, 1)}}));
    offsets = register_module("offsets", ParameterDict());
    for (auto &[key, head] : *heads) {
      Tensor offset =
          Tensor::zeros({head.ptr<LinearImpl>()->options.out_features()});
      offsets->insert(key, init::normal_(offset));
    }
  }

  std::vector<Tensor> forward(const Tensor &x) {
    Tensor h = trunk(x);
    std::vector<Tensor> outputs;
    for (const auto &[key, head] : *heads)
      outputs.push_back(head(h) + (*offsets)[key]);
    return outputs;
  }

  Sequential trunk{nullptr};
  ModuleDict heads{nullptr};
  ParameterDict offsets{nullptr};
};
NN_MODULE(MultiHeadModel);

} // namespace nn::models

#endif // NN_EXAMPLES_MODELS_MULTIHEADMODEL_H
