//===- Elementwise.cpp - nn::functional: elementwise arithmetic, math and comparisons ---===//
//
// Records the ops of nn/Functional/Elementwise.h into the current trace.
//
//===----------------------------------------------------------------------===//

#include "nn/Functional/Elementwise.h"

#include "../TraceContext.h"

#include "nn/IR/NNOps.h"

namespace nn::functional {

using detail::TraceContext;

} // namespace nn::functional
