//===- Elementwise.cpp - nn elementwise ops to linalg.generic -------------===//
//
// Lowers the elementwise ops (broadcasting arithmetic, math, comparisons,
// where, relu) to one `linalg.generic` each. Broadcasting is expressed in the indexing maps, so
// nothing is materialized at the broadcast shape.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::nn;

Value mlir::nn::buildZeroFilled(OpBuilder &b, Location loc,
                                RankedTensorType type) {
  Value empty =
      b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
  Value zero = b.create<arith::ConstantOp>(
      loc, type.getElementType(), b.getZeroAttr(type.getElementType()));
  return b.create<linalg::FillOp>(loc, zero, empty).getResult(0);
}

Value mlir::nn::buildBroadcastingElementwise(OpBuilder &b, Location loc,
                                             RankedTensorType resultType,
                                             ValueRange inputs,
                                             ScalarBodyBuilder body) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs) {
    auto type = llvm::cast<RankedTensorType>(input.getType());
    int64_t offset = rank - type.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      bool broadcast = type.getDimSize(i) == 1 &&
                       resultType.getDimSize(offset + i) != 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(offset + i, ctx));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value init = b.create<tensor::EmptyOp>(loc, resultType.getShape(),
                                         resultType.getElementType());
  auto generic = b.create<linalg::GenericOp>(
      loc, resultType, inputs, init, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        nested.create<linalg::YieldOp>(nestedLoc, result);
      });
  return generic.getResult(0);
}

Value mlir::nn::applyActivation(OpBuilder &b, Location loc,
                                Activation activation, Value value) {
  switch (activation) {
  case Activation::none:
    return value;
  case Activation::relu: {
    // arith.maximumf propagates NaN, as torch.relu does.
    Value zero = b.create<arith::ConstantOp>(
        loc, value.getType(), b.getZeroAttr(value.getType()));
    return b.create<arith::MaximumFOp>(loc, value, zero);
  }
  }
  llvm_unreachable("unknown activation");
}

namespace {

/// Registers `ElementwiseLowering<Op>` for a binary op whose float and
/// integer forms are single arith ops.
template <typename Op, typename FloatOp, typename IntOp>
void addBinary(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<Op>>(
      patterns.getContext(),
      [](OpBuilder &b, Location loc, Op, ValueRange x) -> Value {
        if (llvm::isa<FloatType>(x[0].getType()))
          return b.create<FloatOp>(loc, x[0], x[1]);
        return b.create<IntOp>(loc, x[0], x[1]);
      });
}

/// Registers `ElementwiseLowering<Op>` for a float op that is one MLIR op
/// (arith or math) of the same operands.
template <typename Op, typename ScalarOp>
void addFloat(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<Op>>(
      patterns.getContext(),
      [](OpBuilder &b, Location loc, Op, ValueRange x) -> Value {
        return b.create<ScalarOp>(loc, x);
      });
}

/// arith.cmpf / arith.cmpi predicate of a comparison. Float comparisons are
/// ordered except `ne`, which is true for NaN as in PyTorch.
std::pair<arith::CmpFPredicate, arith::CmpIPredicate>
predicates(ComparisonPredicate predicate) {
  switch (predicate) {
  case ComparisonPredicate::eq:
    return {arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq};
  case ComparisonPredicate::ne:
    return {arith::CmpFPredicate::UNE, arith::CmpIPredicate::ne};
  case ComparisonPredicate::lt:
    return {arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt};
  case ComparisonPredicate::le:
    return {arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle};
  case ComparisonPredicate::gt:
    return {arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt};
  case ComparisonPredicate::ge:
    return {arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge};
  }
  llvm_unreachable("unknown comparison");
}

} // namespace

Value mlir::nn::buildScalar(OpBuilder &b, Location loc, Type type,
                            double value) {
  if (auto floatType = llvm::dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(loc, b.getFloatAttr(floatType, value));
  return b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

void mlir::nn::populateElementwisePatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  addBinary<AddOp, arith::AddFOp, arith::AddIOp>(patterns);
  addBinary<SubOp, arith::SubFOp, arith::SubIOp>(patterns);
  addBinary<MulOp, arith::MulFOp, arith::MulIOp>(patterns);
  addBinary<MaximumOp, arith::MaximumFOp, arith::MaxSIOp>(patterns);
  addBinary<MinimumOp, arith::MinimumFOp, arith::MinSIOp>(patterns);
  addFloat<DivOp, arith::DivFOp>(patterns);
  addFloat<PowOp, math::PowFOp>(patterns);
  addFloat<NegOp, arith::NegFOp>(patterns);
  addFloat<AbsOp, math::AbsFOp>(patterns);
  addFloat<ExpOp, math::ExpOp>(patterns);
  addFloat<LogOp, math::LogOp>(patterns);
  addFloat<SqrtOp, math::SqrtOp>(patterns);
  addFloat<RsqrtOp, math::RsqrtOp>(patterns);
  patterns.add<ElementwiseLowering<CompareOp>>(
      ctx, [](OpBuilder &b, Location loc, CompareOp op, ValueRange x) -> Value {
        auto [floatPredicate, intPredicate] = predicates(op.getPredicate());
        if (llvm::isa<FloatType>(x[0].getType()))
          return b.create<arith::CmpFOp>(loc, floatPredicate, x[0], x[1]);
        return b.create<arith::CmpIOp>(loc, intPredicate, x[0], x[1]);
      });
  patterns.add<ElementwiseLowering<WhereOp>>(
      ctx, [](OpBuilder &b, Location loc, WhereOp, ValueRange x) -> Value {
        return b.create<arith::SelectOp>(loc, x[0], x[1], x[2]);
      });
  patterns.add<ElementwiseLowering<ReluOp>>(
      ctx, [](OpBuilder &b, Location loc, ReluOp, ValueRange x) {
        return applyActivation(b, loc, Activation::relu, x[0]);
      });
}
