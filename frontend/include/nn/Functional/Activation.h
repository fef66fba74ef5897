//===- Activation.h - nn::functional: activation functions -*- C++ -*-===//
//
// Part of nn/Functional.h; see there for the rules every functional op
// follows.
//
//===----------------------------------------------------------------------===//
#ifndef NN_FUNCTIONAL_ACTIVATION_H
#define NN_FUNCTIONAL_ACTIVATION_H

#include "nn/Runtime/Tensor.h"

namespace nn::functional {

} // namespace nn::functional

#endif // NN_FUNCTIONAL_ACTIVATION_H
