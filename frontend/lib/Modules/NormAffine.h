//===- NormAffine.h - The affine parameters of normalization layers -*- C++
//-*-===//
//
// BatchNorm, LayerNorm and GroupNorm share PyTorch's affine convention:
// "weight" (ones) and "bias" (zeros) of one shape, or two None slots.
//
//===----------------------------------------------------------------------===//
#ifndef NN_FRONTEND_LIB_MODULES_NORMAFFINE_H
#define NN_FRONTEND_LIB_MODULES_NORMAFFINE_H

#include "nn/Frontend/Module.h"
#include "nn/Init.h"

namespace nn::detail {

/// Registers the members `weight` and `bias` of `module` as its parameters
/// "weight" and "bias" of `shape` when `affine`; otherwise registers both
/// names empty, as PyTorch registers None. reset_norm_affine sets the values.
inline void register_norm_affine(Module &module, bool affine,
                                 const Shape &shape, Tensor &weight,
                                 Tensor &bias) {
  if (!affine) {
    module.register_parameter("weight", nullptr);
    module.register_parameter("bias", nullptr);
    return;
  }
  weight = Tensor::zeros(shape);
  bias = Tensor::zeros(shape);
  module.register_parameter("weight", &weight);
  module.register_parameter("bias", &bias);
}

/// PyTorch's reset_parameters() of the affine part: weight ones, bias zeros.
inline void reset_norm_affine(bool affine, Tensor &weight, Tensor &bias) {
  if (!affine)
    return;
  init::constant_(weight, 1.0);
  init::constant_(bias, 0.0);
}

} // namespace nn::detail

#endif // NN_FRONTEND_LIB_MODULES_NORMAFFINE_H
