//===- ConvolutionOps.cpp - nn convolution, pooling and resampling ---===//
//
// Verifiers, result-type inference and folders of the ops in
// NNConvolutionOps.td.
//
//===----------------------------------------------------------------------===//

#include "nn/IR/NNOps.h"
#include "OpUtils.h"

using namespace mlir;
using namespace mlir::nn;
