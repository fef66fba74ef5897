//===- OpUtils.h - Helpers shared by the nn op definitions ------*- C++ -*-===//
//
// Shape and element-type checks every op family's inference uses, with the
// error wording users see (prefixed by the module path when tracing).
//
//===----------------------------------------------------------------------===//
#ifndef NN_IR_LIB_OPUTILS_H
#define NN_IR_LIB_OPUTILS_H

#include "nn/IR/NNOps.h"

namespace mlir::nn::detail {

/// "2x784" for a shaped type.
std::string shapeOf(Type type);

/// The element type `lhs` and `rhs` share, or a located error
/// "<op>: <lhsName> has element type f32 but <rhsName> has f16".
FailureOr<Type> sameElementType(std::optional<Location> loc, StringRef opName,
                                StringRef lhsName, Type lhs, StringRef rhsName,
                                Type rhs);

/// Inference of NN_BroadcastBinaryOp: broadcast shapes, equal element types.
LogicalResult inferBroadcastBinary(std::optional<Location> loc,
                                   StringRef opName, Value lhs, Value rhs,
                                   SmallVectorImpl<Type> &inferredReturnTypes);

/// Inference of NN_PointwiseLossOp (mse_loss, l1_loss): input and target of
/// one shape and element type; the result is that shape for `none`, else a
/// scalar.
LogicalResult inferPointwiseLoss(std::optional<Location> loc, StringRef opName,
                                 Value input, Value target,
                                 LossReduction reduction,
                                 SmallVectorImpl<Type> &inferredReturnTypes);

/// The checks every random op shares: an op that draws (`active`, described
/// as `when` in the error) needs the generator state `rng`, and its counter
/// `offset` (an I64Attr, whose getter is unsigned) is not negative.
LogicalResult verifyRandomOperands(Operation *op, Value rng, bool active,
                                   uint64_t offset, StringRef when);

} // namespace mlir::nn::detail

#endif // NN_IR_LIB_OPUTILS_H
