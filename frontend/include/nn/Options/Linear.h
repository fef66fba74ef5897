//===- Linear.h - Options of Linear -----------------------------*- C++ -*-===//
#ifndef NN_OPTIONS_LINEAR_H
#define NN_OPTIONS_LINEAR_H

#include "nn/Frontend/Arg.h"

#include <cstdint>

namespace nn {

/// Linear(LinearOptions(784, 256).bias(false))
struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  NN_ARG(int64_t, in_features);
  NN_ARG(int64_t, out_features);
  NN_ARG(bool, bias) = true;
};

} // namespace nn

#endif // NN_OPTIONS_LINEAR_H
