//===- LayerNorm.h - LayerNorm layer ----------------------------*- C++ -*-===//
#ifndef NN_MODULES_LAYERNORM_H
#define NN_MODULES_LAYERNORM_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/LayerNorm.h"

namespace nn {

/// Normalizes over the trailing normalized_shape dims.
/// See https://pytorch.org/docs/stable/generated/torch.nn.LayerNorm.html
///   LayerNorm ln(LayerNormOptions({768}).eps(1e-12));
class LayerNormImpl : public Cloneable<LayerNormImpl> {
public:
  explicit LayerNormImpl(const LayerNormOptions &options);

  /// weight = 1, bias = 0.
  void reset_parameters();
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  LayerNormOptions options;
  Tensor weight; // normalized_shape; undefined unless elementwise_affine
  Tensor bias;   // normalized_shape; undefined unless elementwise_affine
};
NN_MODULE(LayerNorm);

} // namespace nn

#endif // NN_MODULES_LAYERNORM_H
