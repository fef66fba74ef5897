//===- Upsampling.h - Upsample layer ----------------------------*- C++ -*-===//
#ifndef NN_MODULES_UPSAMPLING_H
#define NN_MODULES_UPSAMPLING_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/Convolution.h"

namespace nn {

/// F::interpolate as a layer, for [N, C, H, W] input.
/// See https://pytorch.org/docs/stable/generated/torch.nn.Upsample.html
///   Upsample
///   up(UpsampleOptions().scale_factor({2}).mode(kBilinear).align_corners(false));
class UpsampleImpl : public Cloneable<UpsampleImpl> {
public:
  explicit UpsampleImpl(const UpsampleOptions &options = {});
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  UpsampleOptions options;
};
NN_MODULE(Upsample);

} // namespace nn

#endif // NN_MODULES_UPSAMPLING_H
