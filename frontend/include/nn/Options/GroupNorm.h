//===- GroupNorm.h - Options of GroupNorm -----------------------*- C++ -*-===//
#ifndef NN_OPTIONS_GROUPNORM_H
#define NN_OPTIONS_GROUPNORM_H

#include "nn/Frontend/Arg.h"

#include <cstdint>

namespace nn {

/// GroupNorm(GroupNormOptions(2, 6).eps(1e-3).affine(false))
struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  NN_ARG(int64_t, num_groups);
  NN_ARG(int64_t, num_channels);
  NN_ARG(double, eps) = 1e-5;
  NN_ARG(bool, affine) = true;
};

} // namespace nn

#endif // NN_OPTIONS_GROUPNORM_H
