//===- MyLinear.h - A hand-written Linear -----------------------*- C++ -*-===//
//
// How a custom layer registers its tensors: members registered as
// parameters, and register_parameter("bias", nullptr) for bias=false (the
// slot exists, appears nowhere). The PyTorch twin is in
// tests/reference/generate_module_goldens.py.
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_MODELS_MYLINEAR_H
#define NN_EXAMPLES_MODELS_MYLINEAR_H

#include "nn/nn.h"

#include <cmath>

namespace nn::models {

class MyLinearImpl : public Cloneable<MyLinearImpl> {
public:
  MyLinearImpl(int64_t in_features, int64_t out_features, bool with_bias)
      : Cloneable("MyLinear"), in_features(in_features),
        out_features(out_features) {
    weight = Tensor::zeros({out_features, in_features});
    register_parameter("weight", &weight);
    if (with_bias) {
      bias = Tensor::zeros({out_features});
      register_parameter("bias", &bias);
    } else {
      register_parameter("bias", nullptr);
    }
    init::kaiming_uniform_(weight, std::sqrt(5.0));
    if (bias.defined())
      init::uniform_(bias, -1 / std::sqrt(double(in_features)),
                     1 / std::sqrt(double(in_features)));
  }

  Tensor forward(const Tensor &x) { return F::linear(x, weight, bias); }

  std::string extra_repr() const override {
    return "in_features=" + std::to_string(in_features) +
           ", out_features=" + std::to_string(out_features) +
           ", bias=" + (bias.defined() ? "True" : "False");
  }

  int64_t in_features, out_features;
  Tensor weight, bias;
};
NN_MODULE(MyLinear);

} // namespace nn::models

#endif // NN_EXAMPLES_MODELS_MYLINEAR_H
