//===- Convolution.cpp - nn::functional: convolution, pooling and resampling ---===//
//
// Records the ops of nn/Functional/Convolution.h into the current trace.
//
//===----------------------------------------------------------------------===//

#include "nn/Functional/Convolution.h"

#include "../TraceContext.h"

#include "nn/IR/NNOps.h"

namespace nn::functional {

using detail::TraceContext;

} // namespace nn::functional
