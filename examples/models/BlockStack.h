//===- BlockStack.h - A ModuleList of residual blocks -----------*- C++ -*-===//
//
// Three residual blocks (Linear, ReLU, Dropout) in a ModuleList, each with a
// learned shift from a ParameterList, then a Linear head. The PyTorch twin
// is in tests/reference/generate_module_goldens.py.
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_MODELS_BLOCKSTACK_H
#define NN_EXAMPLES_MODELS_BLOCKSTACK_H

#include "nn/nn.h"

namespace nn::models {

class BlockImpl : public Cloneable<BlockImpl> {
public:
  explicit BlockImpl(int64_t width) : Cloneable("Block") {
    fc = register_module("fc", Linear(width, width));
    act = register_module("act", ReLU());
    dropout = register_module("dropout", Dropout(0.1));
  }

  Tensor forward(const Tensor &x) { return dropout(act(fc(x))); }

  Linear fc{nullptr};
  ReLU act{nullptr};
  Dropout dropout{nullptr};
};
NN_MODULE(Block);

class BlockStackImpl : public Cloneable<BlockStackImpl> {
public:
  BlockStackImpl() : Cloneable("BlockStack") {
    blocks = register_module("blocks", ModuleList());
    shifts = register_module("shifts", ParameterList());
    for (int i = 0; i < 3; ++i)
      blocks->push_back(Block(16));
    for (int i = 0; i < 3; ++i) {
      Tensor shift = Tensor::zeros({16});
      shifts->append(init::normal_(shift));
    }
    head = register_module("head", Linear(16, 4));
  }

  Tensor forward(Tensor x) {
    for (size_t i = 0; i < blocks->size(); ++i)
      x = x + blocks[i](x) + (*shifts)[i];
    return head(x);
  }

  ModuleList blocks{nullptr};
  ParameterList shifts{nullptr};
  Linear head{nullptr};
};
NN_MODULE(BlockStack);

} // namespace nn::models

#endif // NN_EXAMPLES_MODELS_BLOCKSTACK_H
