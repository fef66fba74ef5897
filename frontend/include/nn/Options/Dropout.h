//===- Dropout.h - Options of Dropout ---------------------------*- C++ -*-===//
#ifndef NN_OPTIONS_DROPOUT_H
#define NN_OPTIONS_DROPOUT_H

#include "nn/Frontend/Arg.h"

namespace nn {

/// Dropout(DropoutOptions().p(0.1)) or Dropout(0.1)
struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}
  NN_ARG(double, p);
};

} // namespace nn

#endif // NN_OPTIONS_DROPOUT_H
