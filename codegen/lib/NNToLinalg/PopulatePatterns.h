//===- PopulatePatterns.h - nn → linalg pattern families --------*- C++ -*-===//
//
// One populate function per op family, and the helpers they share.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CODEGEN_NNTOLINALG_POPULATEPATTERNS_H
#define NN_CODEGEN_NNTOLINALG_POPULATEPATTERNS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"
#include "nn/IR/NNOps.h"

namespace mlir::nn {

/// linear, matmul.
void populateLinearPatterns(RewritePatternSet &patterns);
/// add, relu, dropout and the ops of NNElementwiseOps.td.
void populateElementwisePatterns(RewritePatternSet &patterns);
/// NNActivationOps.td.
void populateActivationPatterns(RewritePatternSet &patterns);
/// NNConvolutionOps.td.
void populateConvolutionPatterns(RewritePatternSet &patterns);
/// NNNormalizationOps.td.
void populateNormalizationPatterns(RewritePatternSet &patterns);
/// NNShapeOps.td.
void populateShapePatterns(RewritePatternSet &patterns);
/// nn.fused.
void populateFusedPatterns(RewritePatternSet &patterns);

/// The scalar computation of the NN_Pointwise op `op` on one element of each
/// operand (`scalars`, in operand order): the body of its linalg.generic,
/// shared by the op's own lowering and the nn.fused epilogue.
Value buildPointwiseScalar(OpBuilder &b, Location loc, Operation *op,
                           ValueRange scalars);
/// The arithmetic, math and relu part of buildPointwiseScalar (null for
/// other ops); Elementwise.cpp.
Value buildElementwiseScalar(OpBuilder &b, Location loc, Operation *op,
                             ValueRange scalars);
/// The activation part of buildPointwiseScalar (null for other ops);
/// Activation.cpp.
Value buildActivationScalar(OpBuilder &b, Location loc, Operation *op,
                            ValueRange scalars);

/// Builds the body of an elementwise op from its scalar arguments.
using ScalarBodyBuilder =
    function_ref<Value(OpBuilder &, Location, ValueRange scalars)>;

/// A `linalg.generic` computing `resultType` elementwise from `inputs`, each
/// broadcast to the result shape with NumPy rules (size-1 and missing leading
/// dimensions read index 0).
Value buildBroadcastingElementwise(OpBuilder &b, Location loc,
                                   RankedTensorType resultType,
                                   ValueRange inputs, ScalarBodyBuilder body);

/// An empty tensor of `type` filled with zero.
Value buildZeroFilled(OpBuilder &b, Location loc, RankedTensorType type);

/// A scalar constant of `type` (a float or integer type) holding `value`.
Value buildScalar(OpBuilder &b, Location loc, Type type, double value);

/// Lowers an elementwise op to one broadcasting linalg.generic whose body is
/// `body(builder, loc, op, scalar operands)`. One pattern class serves every
/// elementwise op; each registration supplies its scalar computation:
///   patterns.add<ElementwiseLowering<WhereOp>>(ctx, [](OpBuilder &b, Location l,
///       WhereOp, ValueRange x) -> Value { return b.create<arith::SelectOp>(l, x); });
/// (NN_Pointwise ops need none: they share buildPointwiseScalar.)
template <typename SourceOp>
struct ElementwiseLowering : public OpRewritePattern<SourceOp> {
  using Body = Value (*)(OpBuilder &, Location, SourceOp, ValueRange);
  ElementwiseLowering(MLIRContext *context, Body body)
      : OpRewritePattern<SourceOp>(context), body(body) {}

  LogicalResult matchAndRewrite(SourceOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = llvm::cast<RankedTensorType>(op.getType());
    Value result = buildBroadcastingElementwise(
        rewriter, op.getLoc(), resultType, op->getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return body(b, loc, op, args);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  Body body;
};

/// `value` with `activation` applied (identity for `none`).
Value applyActivation(OpBuilder &b, Location loc, Activation activation,
                      Value value);

} // namespace mlir::nn

#endif // NN_CODEGEN_NNTOLINALG_POPULATEPATTERNS_H
