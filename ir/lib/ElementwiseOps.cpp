//===- ElementwiseOps.cpp - nn elementwise arithmetic, math and comparisons
//---===//
//
// Verifiers, result-type inference and folders of the ops in
// NNElementwiseOps.td.
//
//===----------------------------------------------------------------------===//

#include "OpUtils.h"
#include "nn/IR/NNOps.h"

using namespace mlir;
using namespace mlir::nn;

/// x * 1 → x when the one is a splat constant that does not broadcast x.
OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  auto isOne = [](Attribute attr) {
    auto splat = llvm::dyn_cast_if_present<SplatElementsAttr>(attr);
    if (!splat)
      return false;
    if (llvm::isa<FloatType>(splat.getElementType()))
      return splat.getSplatValue<APFloat>().isExactlyValue(1.0);
    return splat.getSplatValue<APInt>().isOne();
  };
  if (isOne(adaptor.getRhs()) && getLhs().getType() == getType())
    return getLhs();
  if (isOne(adaptor.getLhs()) && getRhs().getType() == getType())
    return getRhs();
  return {};
}

LogicalResult
CompareOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                            Adaptor adaptor,
                            SmallVectorImpl<Type> &inferredReturnTypes) {
  auto lhs = llvm::cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = llvm::cast<RankedTensorType>(adaptor.getRhs().getType());
  if (failed(detail::sameElementType(loc, "compare", "lhs", lhs, "rhs", rhs)))
    return failure();
  auto shape =
      inferBroadcastShape(loc, "compare", lhs.getShape(), rhs.getShape());
  if (failed(shape))
    return failure();
  inferredReturnTypes.push_back(
      RankedTensorType::get(*shape, IntegerType::get(context, 1)));
  return success();
}

LogicalResult
WhereOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                          Adaptor adaptor,
                          SmallVectorImpl<Type> &inferredReturnTypes) {
  auto cond = llvm::cast<RankedTensorType>(adaptor.getCondition().getType());
  auto lhs = llvm::cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = llvm::cast<RankedTensorType>(adaptor.getRhs().getType());
  auto elementType =
      detail::sameElementType(loc, "where", "lhs", lhs, "rhs", rhs);
  if (failed(elementType))
    return failure();
  auto values =
      inferBroadcastShape(loc, "where", lhs.getShape(), rhs.getShape());
  if (failed(values))
    return failure();
  auto shape =
      inferBroadcastShape(loc, "where (condition)", cond.getShape(), *values);
  if (failed(shape))
    return failure();
  inferredReturnTypes.push_back(RankedTensorType::get(*shape, *elementType));
  return success();
}
