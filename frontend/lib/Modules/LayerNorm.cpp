//===- LayerNorm.cpp - LayerNorm layer ------------------------------------===//

#include "nn/Modules/LayerNorm.h"

#include "nn/Frontend/Repr.h"
#include "nn/Init.h"

#include "nn/Functional.h"

namespace nn {

LayerNormImpl::LayerNormImpl(const LayerNormOptions &options_)
    : Cloneable("LayerNorm"), options(options_) {
  if (options.elementwise_affine()) {
    weight = Tensor::zeros(Shape(options.normalized_shape()));
    bias = Tensor::zeros(Shape(options.normalized_shape()));
    register_parameter("weight", &weight);
    register_parameter("bias", &bias);
  } else {
    register_parameter("weight", nullptr);
    register_parameter("bias", nullptr);
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (options.elementwise_affine()) {
    init::constant_(weight, 1.0);
    init::constant_(bias, 0.0);
  }
}

Tensor LayerNormImpl::forward(const Tensor &input) {
  return F::layer_norm(input, F::LayerNormFuncOptions(options.normalized_shape())
                                  .weight(weight)
                                  .bias(bias)
                                  .eps(options.eps()));
}

std::string LayerNormImpl::extra_repr() const {
  return py_repr(options.normalized_shape()) +
         ", eps=" + py_repr(options.eps()) +
         ", elementwise_affine=" + py_repr(options.elementwise_affine());
}

} // namespace nn
