//===- Convolution.cpp - nn convolution, pooling and resampling to linalg ---===//
//
// Lowerings of the ops in NNConvolutionOps.td.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::nn;

void mlir::nn::populateConvolutionPatterns(RewritePatternSet &patterns) {}
