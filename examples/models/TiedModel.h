//===- TiedModel.h - Weight tying by assignment -----------------*- C++ -*-===//
//
// decoder->weight = encoder->weight, as `self.decoder.weight =
// self.encoder.weight` in Python: one parameter in named_parameters(), two
// keys in state_dict(), one symbol when traced. The PyTorch twin is in
// tests/reference/generate_module_goldens.py.
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_MODELS_TIEDMODEL_H
#define NN_EXAMPLES_MODELS_TIEDMODEL_H

#include "nn/nn.h"

namespace nn::models {

class TiedModelImpl : public Cloneable<TiedModelImpl> {
public:
  TiedModelImpl() : Cloneable("TiedModel") {
    encoder = register_module("encoder", Linear(16, 16));
    decoder = register_module("decoder", Linear(16, 16));
    decoder->weight = encoder->weight;
  }

  Tensor forward(const Tensor &x) { return decoder(F::relu(encoder(x))); }

  Linear encoder{nullptr}, decoder{nullptr};
};
NN_MODULE(TiedModel);

} // namespace nn::models

#endif // NN_EXAMPLES_MODELS_TIEDMODEL_H
