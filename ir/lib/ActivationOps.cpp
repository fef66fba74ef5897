//===- ActivationOps.cpp - nn activation functions ---===//
//
// Verifiers, result-type inference and folders of the ops in
// NNActivationOps.td.
//
//===----------------------------------------------------------------------===//

#include "nn/IR/NNOps.h"
#include "OpUtils.h"

using namespace mlir;
using namespace mlir::nn;
