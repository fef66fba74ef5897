//===- LayerNorm.h - Options of LayerNorm -----------------------*- C++ -*-===//
#ifndef NN_OPTIONS_LAYERNORM_H
#define NN_OPTIONS_LAYERNORM_H

#include "nn/Frontend/Arg.h"

#include <cstdint>
#include <vector>

namespace nn {

/// LayerNorm(LayerNormOptions({3, 4}).eps(1e-6).elementwise_affine(false))
struct LayerNormOptions {
  /* implicit */ LayerNormOptions(std::vector<int64_t> normalized_shape)
      : normalized_shape_(std::move(normalized_shape)) {}
  NN_ARG(std::vector<int64_t>, normalized_shape);
  NN_ARG(double, eps) = 1e-5;
  NN_ARG(bool, elementwise_affine) = true;
};

} // namespace nn

#endif // NN_OPTIONS_LAYERNORM_H
