//===- Flatten.h - Options of Flatten ---------------------------*- C++ -*-===//
#ifndef NN_OPTIONS_FLATTEN_H
#define NN_OPTIONS_FLATTEN_H

#include "nn/Frontend/Arg.h"

#include <cstdint>

namespace nn {

/// Flatten(FlattenOptions().start_dim(0).end_dim(-1))
struct FlattenOptions {
  NN_ARG(int64_t, start_dim) = 1;
  NN_ARG(int64_t, end_dim) = -1;
};

} // namespace nn

#endif // NN_OPTIONS_FLATTEN_H
