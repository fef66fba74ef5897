//===- Dropout.h - Options of Dropout ---------------------------*- C++ -*-===//
#ifndef NN_OPTIONS_DROPOUT_H
#define NN_OPTIONS_DROPOUT_H

#include "nn/Frontend/Arg.h"

namespace nn {

/// Dropout(DropoutOptions().p(0.1)) or Dropout(0.1). `inplace` is
/// accepted and printed as PyTorch prints it; in a traced graph it changes
/// nothing (forward's result is the same value either way).
struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}
  NN_ARG(double, p);
  NN_ARG(bool, inplace) = false;
};

} // namespace nn

#endif // NN_OPTIONS_DROPOUT_H
