//===- Normalization.cpp - nn normalization and reductions to linalg ---===//
//
// Lowerings of the ops in NNNormalizationOps.td.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::nn;

void mlir::nn::populateNormalizationPatterns(RewritePatternSet &patterns) {}
