//===- BatchNorm.h - Options of BatchNorm1d / BatchNorm2d -------*- C++ -*-===//
#ifndef NN_OPTIONS_BATCHNORM_H
#define NN_OPTIONS_BATCHNORM_H

#include "nn/Frontend/Arg.h"

#include <cstdint>
#include <optional>

namespace nn {

/// BatchNorm2d(BatchNormOptions(32).momentum(std::nullopt).affine(false))
struct BatchNormOptions {
  /* implicit */ BatchNormOptions(int64_t num_features)
      : num_features_(num_features) {}
  NN_ARG(int64_t, num_features);
  NN_ARG(double, eps) = 1e-5;
  /// nullopt: a cumulative average over num_batches_tracked (momentum=None).
  NN_ARG(std::optional<double>, momentum) = 0.1;
  NN_ARG(bool, affine) = true;
  NN_ARG(bool, track_running_stats) = true;
};

} // namespace nn

#endif // NN_OPTIONS_BATCHNORM_H
