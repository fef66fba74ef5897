//===- Normalization.cpp - nn::functional: normalization and reductions ---===//
//
// Records the ops of nn/Functional/Normalization.h into the current trace.
//
//===----------------------------------------------------------------------===//

#include "nn/Functional/Normalization.h"

#include "../TraceContext.h"

#include "nn/IR/NNOps.h"

namespace nn::functional {

using detail::TraceContext;

} // namespace nn::functional
