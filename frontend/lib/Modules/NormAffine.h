//===- NormAffine.h - The affine parameters of normalization layers -*- C++
//-*-===//
//
// BatchNorm, InstanceNorm, LayerNorm and GroupNorm share PyTorch's affine
// convention: "weight" (ones) and "bias" (zeros) of one shape, or two None
// slots; BatchNorm and InstanceNorm its running statistics.
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

/// Registers `mean` and `var` ([n]) and `count` (an i64 scalar) as the
/// buffers "running_mean", "running_var" and "num_batches_tracked" of
/// `module` when `track`. Without tracking PyTorch registers None buffers,
/// which no traversal or state_dict lists; leaving them out is the same.
/// reset_running_stats sets the values.
inline void register_running_stats(Module &module, bool track, int64_t n,
                                   Tensor &mean, Tensor &var, Tensor &count) {
  if (!track)
    return;
  mean = Tensor::zeros({n});
  var = Tensor::zeros({n});
  count = Tensor::zeros({}, DType::i64);
  module.register_buffer("running_mean", &mean);
  module.register_buffer("running_var", &var);
  module.register_buffer("num_batches_tracked", &count);
}

/// PyTorch's reset_running_stats(): mean 0, var 1, count 0.
inline void reset_running_stats(bool track, Tensor &mean, Tensor &var,
                                Tensor &count) {
  if (!track)
    return;
  init::constant_(mean, 0.0);
  init::constant_(var, 1.0);
  count.data_ptr<int64_t>()[0] = 0;
}

} // namespace nn::detail

#endif // NN_FRONTEND_LIB_MODULES_NORMAFFINE_H
