//===- Elementwise.cpp - nn elementwise ops to linalg.generic -------------===//
//
// Lowers the elementwise ops (broadcasting arithmetic, math, comparisons,
// where, relu) to one `linalg.generic` each; every pointwise op
// (NN_Pointwise) through one pattern and its ScalarBodyOpInterface (the
// bodies of this family are here), which the nn.fused epilogue shares.
// Broadcasting is expressed in the indexing maps, so nothing is materialized at
// the broadcast shape.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

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

Type mlir::nn::computeType(Type storage) {
  if (storage.isF16() || storage.isBF16())
    return Float32Type::get(storage.getContext());
  return storage;
}

Value mlir::nn::convertFloat(OpBuilder &b, Location loc, Value value,
                             Type type) {
  auto from = llvm::dyn_cast<FloatType>(value.getType());
  auto to = llvm::dyn_cast<FloatType>(type);
  if (!from || !to || from == to)
    return value;
  if (from.getWidth() < to.getWidth())
    return b.create<arith::ExtFOp>(loc, to, value);
  return b.create<arith::TruncFOp>(loc, to, value);
}

Value mlir::nn::convertElements(OpBuilder &b, Location loc, Value value,
                                Type elementType) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return buildBroadcastingElementwise(
      b, loc, type.clone(elementType), value,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        return convertFloat(nb, nl, args[0], elementType);
      });
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
      bool broadcast =
          type.getDimSize(i) == 1 && resultType.getDimSize(offset + i) != 1;
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

namespace {

/// `FloatOp` for float operands, `IntOp` for integer ones.
template <typename FloatOp, typename IntOp>
Value floatOrInt(OpBuilder &b, Location loc, ValueRange x) {
  if (llvm::isa<FloatType>(x[0].getType()))
    return b.create<FloatOp>(loc, x[0], x[1]);
  return b.create<IntOp>(loc, x[0], x[1]);
}

/// Lowers every NN_Pointwise op to one broadcasting linalg.generic whose body
/// is buildPointwiseScalar.
struct PointwiseLowering
    : public OpTraitRewritePattern<OpTrait::nn::Pointwise> {
  using OpTraitRewritePattern::OpTraitRewritePattern;

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    ScalarBodyOpInterface body = scalarBodyOf(op);
    if (!body)
      return failure();
    auto resultType = llvm::cast<RankedTensorType>(op->getResult(0).getType());
    Value result = buildBroadcastingElementwise(
        rewriter, op->getLoc(), resultType, op->getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return buildPointwiseScalar(b, loc, body, args);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

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

// The scalar bodies of this family (ScalarBodyModel finds them by
// argument-dependent lookup).
namespace mlir::nn {
static Value scalarBody(AddOp, OpBuilder &b, Location loc, ValueRange x) {
  return floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, x);
}
static Value scalarBody(SubOp, OpBuilder &b, Location loc, ValueRange x) {
  return floatOrInt<arith::SubFOp, arith::SubIOp>(b, loc, x);
}
static Value scalarBody(MulOp, OpBuilder &b, Location loc, ValueRange x) {
  return floatOrInt<arith::MulFOp, arith::MulIOp>(b, loc, x);
}
static Value scalarBody(MaximumOp, OpBuilder &b, Location loc, ValueRange x) {
  return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, loc, x);
}
static Value scalarBody(MinimumOp, OpBuilder &b, Location loc, ValueRange x) {
  return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, loc, x);
}
static Value scalarBody(DivOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<arith::DivFOp>(loc, x);
}
static Value scalarBody(PowOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::PowFOp>(loc, x);
}
static Value scalarBody(NegOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<arith::NegFOp>(loc, x);
}
static Value scalarBody(AbsOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::AbsFOp>(loc, x);
}
static Value scalarBody(ExpOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::ExpOp>(loc, x);
}
static Value scalarBody(LogOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::LogOp>(loc, x);
}
static Value scalarBody(SqrtOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::SqrtOp>(loc, x);
}
static Value scalarBody(RsqrtOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::RsqrtOp>(loc, x);
}
static Value scalarBody(ReluOp, OpBuilder &b, Location loc, ValueRange x) {
  // arith.maximumf propagates NaN, as torch.relu does.
  return b.create<arith::MaximumFOp>(loc, x[0],
                                     buildScalar(b, loc, x[0].getType(), 0.0));
}
} // namespace mlir::nn

void mlir::nn::attachElementwiseScalarBodies(MLIRContext *ctx) {
  attachScalarBodies<AddOp, SubOp, MulOp, MaximumOp, MinimumOp, DivOp, PowOp,
                     NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, ReluOp>(ctx);
}

ScalarBodyOpInterface mlir::nn::scalarBodyOf(Operation *op) {
  auto body = llvm::dyn_cast<ScalarBodyOpInterface>(op);
  if (!body)
    op->emitError() << "'" << op->getName()
                    << "' is pointwise but has no scalar body "
                       "(ScalarBodyOpInterface) to lower it with";
  return body;
}

Value mlir::nn::buildPointwiseScalar(OpBuilder &b, Location loc,
                                     ScalarBodyOpInterface body,
                                     ValueRange scalars) {
  // f16/bf16 operands are widened to f32 and the result rounded once to the
  // storage type, as PyTorch's CPU kernels do: one rounding per op, never
  // one per arith op of a composite such as gelu. (In an nn.fused epilogue
  // each op still rounds, which is what the unfused graph computes.)
  Type storage = getElementTypeOrSelf(body->getResult(0).getType());
  Type compute = computeType(storage);
  SmallVector<Value> widened;
  for (Value scalar : scalars)
    widened.push_back(computeType(scalar.getType()) == compute
                          ? convertFloat(b, loc, scalar, compute)
                          : scalar);
  return convertFloat(b, loc, body.buildScalar(b, loc, widened), storage);
}

void mlir::nn::populateElementwisePatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<PointwiseLowering>(ctx);
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
}
