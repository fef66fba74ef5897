//===- Elementwise.h - nn::functional: elementwise arithmetic, math and comparisons -*- C++ -*-===//
//
// Part of nn/Functional.h; see there for the rules every functional op
// follows.
//
//===----------------------------------------------------------------------===//
#ifndef NN_FUNCTIONAL_ELEMENTWISE_H
#define NN_FUNCTIONAL_ELEMENTWISE_H

#include "nn/Runtime/Tensor.h"

namespace nn::functional {

} // namespace nn::functional

#endif // NN_FUNCTIONAL_ELEMENTWISE_H
