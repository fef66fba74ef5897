//===- LayerNorm.cpp - LayerNorm layer ------------------------------------===//

#include "nn/Modules/LayerNorm.h"

#include "NormAffine.h"
#include "nn/Frontend/Repr.h"

#include "nn/Functional.h"

namespace nn {

LayerNormImpl::LayerNormImpl(const LayerNormOptions &options_)
    : Cloneable("LayerNorm"), options(options_) {
  detail::register_norm_affine(*this, options.elementwise_affine(),
                               Shape(options.normalized_shape()), weight, bias);
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  detail::reset_norm_affine(options.elementwise_affine(), weight, bias);
}

Tensor LayerNormImpl::forward(const Tensor &input) {
  return F::layer_norm(input,
                       F::LayerNormFuncOptions(options.normalized_shape())
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
