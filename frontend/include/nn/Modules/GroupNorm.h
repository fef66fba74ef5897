//===- GroupNorm.h - GroupNorm layer ----------------------------*- C++ -*-===//
#ifndef NN_MODULES_GROUPNORM_H
#define NN_MODULES_GROUPNORM_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/GroupNorm.h"

namespace nn {

/// Normalizes each group of channels of [N, C, *] per sample.
/// See https://pytorch.org/docs/stable/generated/torch.nn.GroupNorm.html
///   GroupNorm gn(GroupNormOptions(8, 64));
class GroupNormImpl : public Cloneable<GroupNormImpl> {
public:
  explicit GroupNormImpl(const GroupNormOptions &options);
  GroupNormImpl(int64_t num_groups, int64_t num_channels)
      : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}

  /// weight = 1, bias = 0.
  void reset_parameters();
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  GroupNormOptions options;
  Tensor weight; // [num_channels]; undefined unless affine
  Tensor bias;   // [num_channels]; undefined unless affine
};
NN_MODULE(GroupNorm);

} // namespace nn

#endif // NN_MODULES_GROUPNORM_H
