//===- LSTMClassifier.h - A sequence classifier on an LSTM ------*- C++ -*-===//
//
// A two-layer batch-first LSTM read at its last time step by a Linear head.
// The PyTorch twin is in tests/reference/generate_module_goldens.py.
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_MODELS_LSTMCLASSIFIER_H
#define NN_EXAMPLES_MODELS_LSTMCLASSIFIER_H

#include "nn/nn.h"

namespace nn::models {

class LSTMClassifierImpl : public Cloneable<LSTMClassifierImpl> {
public:
  LSTMClassifierImpl() : Cloneable("LSTMClassifier") {
    lstm = register_module(
        "lstm", LSTM(LSTMOptions(8, 16).num_layers(2).batch_first(true)));
    head = register_module("head", Linear(16, 4));
  }

  /// x: [batch, seq, 8] → logits [batch, 4].
  Tensor forward(const Tensor &x) {
    Tensor output = std::get<0>(lstm(x));
    return head(F::squeeze(F::slice(output, 1, -1), 1));
  }

  LSTM lstm{nullptr};
  Linear head{nullptr};
};
NN_MODULE(LSTMClassifier);

} // namespace nn::models

#endif // NN_EXAMPLES_MODELS_LSTMCLASSIFIER_H
