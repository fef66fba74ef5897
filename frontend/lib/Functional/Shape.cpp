//===- Shape.cpp - nn::functional: reshaping, slicing, joining and indexing ---===//
//
// Records the ops of nn/Functional/Shape.h into the current trace.
//
//===----------------------------------------------------------------------===//

#include "nn/Functional/Shape.h"

#include "../TraceContext.h"

#include "nn/IR/NNOps.h"

namespace nn::functional {

using detail::TraceContext;

} // namespace nn::functional
