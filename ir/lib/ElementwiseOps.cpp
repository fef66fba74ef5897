//===- ElementwiseOps.cpp - nn elementwise arithmetic, math and comparisons ---===//
//
// Verifiers, result-type inference and folders of the ops in
// NNElementwiseOps.td.
//
//===----------------------------------------------------------------------===//

#include "nn/IR/NNOps.h"
#include "OpUtils.h"

using namespace mlir;
using namespace mlir::nn;
