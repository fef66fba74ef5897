//===- ShapeOps.cpp - nn reshaping, slicing, joining and indexing ---===//
//
// Verifiers, result-type inference and folders of the ops in
// NNShapeOps.td.
//
//===----------------------------------------------------------------------===//

#include "nn/IR/NNOps.h"
#include "OpUtils.h"

using namespace mlir;
using namespace mlir::nn;
