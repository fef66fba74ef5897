//===- OpUtils.cpp - Helpers shared by the nn op definitions --------------===//

#include "OpUtils.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::nn;

namespace mlir::nn::detail {

std::string shapeOf(Type type) {
  return mlir::nn::formatShape(llvm::cast<ShapedType>(type).getShape());
}

/// The common element type of `types`, or a located error naming them.
FailureOr<Type> sameElementType(std::optional<Location> loc, StringRef opName,
                                StringRef lhsName, Type lhs, StringRef rhsName,
                                Type rhs) {
  Type l = getElementTypeOrSelf(lhs), r = getElementTypeOrSelf(rhs);
  if (l != r)
    return emitOptionalError(loc, opName, ": ", lhsName, " has element type ",
                             l, " but ", rhsName, " has ", r);
  return l;
}

/// Shared inference of NN_BroadcastBinaryOp: broadcast shapes, equal
/// element types.
LogicalResult inferBroadcastBinary(std::optional<Location> loc,
                                   StringRef opName, Value lhs, Value rhs,
                                   SmallVectorImpl<Type> &inferredReturnTypes) {
  auto lhsType = llvm::cast<RankedTensorType>(lhs.getType());
  auto rhsType = llvm::cast<RankedTensorType>(rhs.getType());
  auto elementType =
      sameElementType(loc, opName, "lhs", lhsType, "rhs", rhsType);
  if (failed(elementType))
    return failure();
  auto shape =
      inferBroadcastShape(loc, opName, lhsType.getShape(), rhsType.getShape());
  if (failed(shape))
    return failure();
  inferredReturnTypes.push_back(RankedTensorType::get(*shape, *elementType));
  return success();
}

LogicalResult verifyRandomOperands(Operation *op, Value rng, bool active,
                                   uint64_t offset, StringRef when) {
  if (active && !rng)
    return op->emitOpError("draws random numbers (")
           << when
           << ") and needs the generator state operand `rng`, the forward's "
              "nn.rng argument";
  if (static_cast<int64_t>(offset) < 0)
    return op->emitOpError("offset must be >= 0, got ")
           << static_cast<int64_t>(offset);
  return success();
}

} // namespace mlir::nn::detail
