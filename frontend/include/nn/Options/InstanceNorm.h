//===- InstanceNorm.h - Options of InstanceNorm -----------------*- C++ -*-===//
#ifndef NN_OPTIONS_INSTANCENORM_H
#define NN_OPTIONS_INSTANCENORM_H

#include "nn/Frontend/Arg.h"

#include <cstdint>

namespace nn {

/// InstanceNorm2d(InstanceNormOptions(64).affine(true)); PyTorch's
/// defaults: no affine, no running statistics.
struct InstanceNormOptions {
  /* implicit */ InstanceNormOptions(int64_t num_features)
      : num_features_(num_features) {}
  NN_ARG(int64_t, num_features);
  NN_ARG(double, eps) = 1e-5;
  NN_ARG(double, momentum) = 0.1;
  NN_ARG(bool, affine) = false;
  NN_ARG(bool, track_running_stats) = false;
};

} // namespace nn

#endif // NN_OPTIONS_INSTANCENORM_H
