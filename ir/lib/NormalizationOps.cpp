//===- NormalizationOps.cpp - nn normalization and reductions ---===//
//
// Verifiers, result-type inference and folders of the ops in
// NNNormalizationOps.td.
//
//===----------------------------------------------------------------------===//

#include "nn/IR/NNOps.h"
#include "OpUtils.h"

using namespace mlir;
using namespace mlir::nn;
