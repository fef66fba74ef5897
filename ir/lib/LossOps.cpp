//===- LossOps.cpp - nn loss functions ------------------------------------===//
//
// Result-type inference (the verifier) of the ops in NNLossOps.td. Messages
// name the loss and the shapes involved, as the tracer shows them to users
// prefixed with the module path.
//
//===----------------------------------------------------------------------===//

#include "OpUtils.h"
#include "nn/IR/NNOps.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::detail;

/// The result of a loss over elements of `perElement` shape.
static Type lossResultType(ArrayRef<int64_t> perElement, Type elementType,
                           LossReduction reduction) {
  if (reduction == LossReduction::none)
    return RankedTensorType::get(perElement, elementType);
  return RankedTensorType::get({}, elementType);
}

LogicalResult mlir::nn::detail::inferPointwiseLoss(
    std::optional<Location> loc, StringRef opName, Value input, Value target,
    LossReduction reduction, SmallVectorImpl<Type> &inferredReturnTypes) {
  auto inputType = llvm::cast<RankedTensorType>(input.getType());
  auto targetType = llvm::cast<RankedTensorType>(target.getType());
  if (inputType.getShape() != targetType.getShape())
    return emitOptionalError(loc, opName, ": input ", shapeOf(inputType),
                             " and target ", shapeOf(targetType),
                             " must have the same shape");
  auto elementType =
      sameElementType(loc, opName, "input", inputType, "target", targetType);
  if (failed(elementType))
    return failure();
  inferredReturnTypes.push_back(
      lossResultType(inputType.getShape(), *elementType, reduction));
  return success();
}

LogicalResult
NllLossOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                            Adaptor adaptor,
                            SmallVectorImpl<Type> &inferredReturnTypes) {
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  auto target = llvm::cast<RankedTensorType>(adaptor.getTarget().getType());
  if (input.getRank() < 1)
    return emitOptionalError(loc, "nll_loss: input must be [N, C, ...] or [C], "
                                  "got a scalar");
  // [C] with a scalar target, or [N, C, d...] with target [N, d...].
  int64_t classDim = input.getRank() == 1 ? 0 : 1;
  SmallVector<int64_t> expected(input.getShape());
  expected.erase(expected.begin() + classDim);
  if (target.getShape() != ArrayRef<int64_t>(expected))
    return emitOptionalError(loc, "nll_loss: target must be ",
                             formatShape(expected), " for input ",
                             shapeOf(input), ", got ", shapeOf(target));
  int64_t classes = input.getDimSize(classDim);
  if (Value weight = adaptor.getWeight()) {
    auto weightType = llvm::cast<RankedTensorType>(weight.getType());
    if (weightType.getRank() != 1 || weightType.getDimSize(0) != classes)
      return emitOptionalError(loc, "nll_loss: weight must be [", classes,
                               "] (one per class of input ", shapeOf(input),
                               "), got ", shapeOf(weightType));
    if (failed(sameElementType(loc, "nll_loss", "input", input, "weight",
                               weightType)))
      return failure();
  }
  inferredReturnTypes.push_back(
      lossResultType(expected, input.getElementType(), adaptor.getReduction()));
  return success();
}
