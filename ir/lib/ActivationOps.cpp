//===- ActivationOps.cpp - nn activation functions ---===//
//
// Verifiers, result-type inference and folders of the ops in
// NNActivationOps.td.
//
//===----------------------------------------------------------------------===//

#include "OpUtils.h"
#include "nn/IR/NNOps.h"

using namespace mlir;
using namespace mlir::nn;

/// Shared by softmax and log_softmax: `dim` names a dimension of the input.
static LogicalResult verifySoftmaxDim(Operation *op, int64_t dim,
                                      RankedTensorType type) {
  int64_t rank = type.getRank();
  if (rank == 0 ? (dim != 0 && dim != -1) : (dim < -rank || dim >= rank))
    return op->emitOpError("dim ")
           << dim << " is out of range for a tensor of rank " << rank
           << " (shape " << formatShape(type.getShape()) << ")";
  return success();
}

LogicalResult SoftmaxOp::verify() {
  return verifySoftmaxDim(*this, getSignedDim(), getType());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifySoftmaxDim(*this, getSignedDim(), getType());
}

LogicalResult ClampOp::verify() {
  if (getMin() && getMax() &&
      getMin()->convertToDouble() > getMax()->convertToDouble())
    return emitOpError("min ")
           << getMin()->convertToDouble() << " is greater than max "
           << getMax()->convertToDouble();
  return success();
}
