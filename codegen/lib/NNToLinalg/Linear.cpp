//===- Linear.cpp - nn.linear and nn.matmul to linalg ---------------------===//
//
// nn.linear becomes linalg.matmul_transpose_b on the input flattened to 2-D,
// accumulating into the broadcast bias, followed (when an activation is fused)
// by one elementwise epilogue. nn.matmul (and attention's products, through
// buildBatchMatmul) becomes linalg.matmul / linalg.batch_matmul when the
// operands' batch dims are the result's, and a linalg.generic with
// broadcasting batch maps otherwise.
//
// f16 and bf16 operands are multiplied and summed in f32 (the named ops widen
// their inputs to the f32 accumulator with arith.extf) and the result is
// rounded once to the storage type (arith.truncf), together with the bias and
// the fused activation: PyTorch's kernels for these dtypes do the same.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::nn;

namespace {

/// Reshapes `value` ([d0, ..., dn-1, k]) to [d0*...*dn-1, k]; a rank-1 value
/// becomes [1, k].
Value flattenTo2D(OpBuilder &b, Location loc, Value value) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  if (rank == 2)
    return value;
  int64_t rows = 1;
  for (int64_t d : type.getShape().drop_back())
    rows *= d;
  auto flatType = RankedTensorType::get({rows, type.getShape().back()},
                                        type.getElementType());
  if (rank == 1)
    return b.create<tensor::ExpandShapeOp>(
        loc, flatType, value, ArrayRef<ReassociationIndices>{{0, 1}});
  ReassociationIndices leading;
  for (int64_t i = 0; i < rank - 1; ++i)
    leading.push_back(i);
  return b.create<tensor::CollapseShapeOp>(
      loc, flatType, value,
      ArrayRef<ReassociationIndices>{leading, {rank - 1}});
}

/// Inverse of flattenTo2D for the result: [rows, n] → `type`.
Value unflattenFrom2D(OpBuilder &b, Location loc, Value value,
                      RankedTensorType type) {
  if (type.getRank() == 2)
    return value;
  if (type.getRank() == 1)
    return b.create<tensor::CollapseShapeOp>(
        loc, type, value, ArrayRef<ReassociationIndices>{{0, 1}});
  ReassociationIndices leading;
  for (int64_t i = 0; i < type.getRank() - 1; ++i)
    leading.push_back(i);
  return b.create<tensor::ExpandShapeOp>(
      loc, type, value,
      ArrayRef<ReassociationIndices>{leading, {type.getRank() - 1}});
}

struct LinearOpLowering : public OpRewritePattern<LinearOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LinearOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = llvm::cast<RankedTensorType>(op.getType());
    Value input = flattenTo2D(rewriter, loc, op.getInput());
    int64_t rows = llvm::cast<RankedTensorType>(input.getType()).getDimSize(0);
    int64_t outFeatures = resultType.getShape().back();
    Type storage = resultType.getElementType();
    Type accumulator = computeType(storage);
    auto flatType = RankedTensorType::get({rows, outFeatures}, accumulator);

    // Accumulate into the bias broadcast over the rows, or into zeros.
    Value init;
    if (Value bias = op.getBias())
      init = buildBroadcastingElementwise(
          rewriter, loc, flatType, bias,
          [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
            return convertFloat(b, nestedLoc, args[0], accumulator);
          });
    else
      init = buildZeroFilled(rewriter, loc, flatType);
    Value product =
        rewriter
            .create<linalg::MatmulTransposeBOp>(
                loc, flatType, ValueRange{input, op.getWeight()}, init)
            .getResult(0);

    // The rounding of a wider accumulator to the storage type.
    if (accumulator != storage)
      product = buildBroadcastingElementwise(
          rewriter, loc, flatType.clone(storage), product,
          [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
            return convertFloat(b, nestedLoc, args[0], storage);
          });
    rewriter.replaceOp(op, unflattenFrom2D(rewriter, loc, product, resultType));
    return success();
  }
};

struct MatmulOpLowering : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = llvm::cast<RankedTensorType>(op.getType());
    rewriter.replaceOp(op, buildBatchMatmul(rewriter, loc, op.getLhs(),
                                            op.getRhs(), resultType));
    return success();
  }
};

} // namespace

Value mlir::nn::buildBatchMatmul(OpBuilder &b, Location loc, Value lhs,
                                 Value rhs, RankedTensorType resultType,
                                 bool transposeRhs) {
  auto lhsType = llvm::cast<RankedTensorType>(lhs.getType());
  auto rhsType = llvm::cast<RankedTensorType>(rhs.getType());
  Type storage = resultType.getElementType();
  Type accumulator = computeType(storage);
  resultType = resultType.clone(accumulator);
  Value init = buildZeroFilled(b, loc, resultType);
  // Named ops where the operands have the result's batch dims as they are.
  int64_t rank = resultType.getRank();
  if (lhsType.getRank() == rank && rhsType.getRank() == rank &&
      lhsType.getShape().drop_back(2) == resultType.getShape().drop_back(2) &&
      rhsType.getShape().drop_back(2) == resultType.getShape().drop_back(2)) {
    ValueRange operands{lhs, rhs};
    Value product;
    if (rank == 2 && transposeRhs)
      product =
          b.create<linalg::MatmulTransposeBOp>(loc, resultType, operands, init)
              .getResult(0);
    else if (rank == 2)
      product = b.create<linalg::MatmulOp>(loc, resultType, operands, init)
                    .getResult(0);
    else if (rank == 3 && transposeRhs)
      product = b.create<linalg::BatchMatmulTransposeBOp>(loc, resultType,
                                                          operands, init)
                    .getResult(0);
    else if (rank == 3)
      product = b.create<linalg::BatchMatmulOp>(loc, resultType, operands, init)
                    .getResult(0);
    if (product)
      return convertElements(b, loc, product, storage);
  }
  // Otherwise one generic with broadcasting batch maps. Loops: batch dims...,
  // m, n (parallel), k (reduction).
  MLIRContext *ctx = b.getContext();
  int64_t batchRank = resultType.getRank() - 2;
  int64_t numLoops = batchRank + 3;
  AffineExpr m = getAffineDimExpr(batchRank, ctx);
  AffineExpr n = getAffineDimExpr(batchRank + 1, ctx);
  AffineExpr k = getAffineDimExpr(batchRank + 2, ctx);
  auto operandMap = [&](RankedTensorType type, AffineExpr row, AffineExpr col) {
    int64_t operandBatch = type.getRank() - 2;
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < operandBatch; ++i) {
      int64_t loop = batchRank - operandBatch + i;
      bool broadcast =
          type.getDimSize(i) == 1 && resultType.getDimSize(loop) != 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(loop, ctx));
    }
    exprs.push_back(row);
    exprs.push_back(col);
    return AffineMap::get(numLoops, 0, exprs, ctx);
  };
  SmallVector<AffineExpr> resultExprs;
  for (int64_t i = 0; i < batchRank; ++i)
    resultExprs.push_back(getAffineDimExpr(i, ctx));
  resultExprs.push_back(m);
  resultExprs.push_back(n);
  SmallVector<AffineMap> maps = {operandMap(lhsType, m, k),
                                 transposeRhs ? operandMap(rhsType, n, k)
                                              : operandMap(rhsType, k, n),
                                 AffineMap::get(numLoops, 0, resultExprs, ctx)};
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  auto generic = b.create<linalg::GenericOp>(
      loc, resultType, ValueRange{lhs, rhs}, init, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value a = convertFloat(nested, nestedLoc, args[0], accumulator);
        Value c = convertFloat(nested, nestedLoc, args[1], accumulator);
        Value product = nested.create<arith::MulFOp>(nestedLoc, a, c);
        Value sum = nested.create<arith::AddFOp>(nestedLoc, args[2], product);
        nested.create<linalg::YieldOp>(nestedLoc, sum);
      });
  return convertElements(b, loc, generic.getResult(0), storage);
}

void mlir::nn::populateLinearPatterns(RewritePatternSet &patterns) {
  patterns.add<LinearOpLowering, MatmulOpLowering>(patterns.getContext());
}
