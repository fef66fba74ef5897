//===- Activation.cpp - nn::functional: activation functions ---===//
//
// Records the ops of nn/Functional/Activation.h into the current trace.
//
//===----------------------------------------------------------------------===//

#include "nn/Functional/Activation.h"

#include "../TraceContext.h"

#include "nn/IR/NNOps.h"

namespace nn::functional {

using detail::TraceContext;

} // namespace nn::functional
