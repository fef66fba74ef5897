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
#include "nn/Conversion/ScalarBodyInterface.h"
#include "nn/IR/NNOps.h"

namespace mlir::nn {

/// linear, matmul.
void populateLinearPatterns(RewritePatternSet &patterns);
/// add, relu and the ops of NNElementwiseOps.td.
void populateElementwisePatterns(RewritePatternSet &patterns);
/// NNActivationOps.td.
void populateActivationPatterns(RewritePatternSet &patterns);
/// NNConvolutionOps.td.
void populateConvolutionPatterns(RewritePatternSet &patterns);
/// NNNormalizationOps.td.
void populateNormalizationPatterns(RewritePatternSet &patterns);
/// NNShapeOps.td.
void populateShapePatterns(RewritePatternSet &patterns);
/// NNLossOps.td.
void populateLossPatterns(RewritePatternSet &patterns);
/// dropout (training: the counter-based random mask).
void populateDropoutPatterns(RewritePatternSet &patterns);
/// NNAttentionOps.td.
void populateAttentionPatterns(RewritePatternSet &patterns);
/// nn.fused.
void populateFusedPatterns(RewritePatternSet &patterns);

/// The scalar computation of the pointwise op `body` on one element of each
/// operand (`scalars`, in operand order): the body of its linalg.generic,
/// shared by the op's own lowering and the nn.fused epilogue. Widens
/// f16/bf16 to f32 around the op's ScalarBodyOpInterface.
Value buildPointwiseScalar(OpBuilder &b, Location loc,
                           ScalarBodyOpInterface body, ValueRange scalars);

/// ScalarBodyOpInterface for `OpT`: its body is `scalarBody(op, builder,
/// loc, scalars)`, a function in namespace mlir::nn of the op family's file
/// (found by argument-dependent lookup where the model is attached).
template <typename OpT>
struct ScalarBodyModel
    : public ScalarBodyOpInterface::ExternalModel<ScalarBodyModel<OpT>, OpT> {
  Value buildScalar(Operation *op, OpBuilder &builder, Location loc,
                    ValueRange scalars) const {
    return scalarBody(llvm::cast<OpT>(op), builder, loc, scalars);
  }
};

/// Attaches ScalarBodyModel to each of `OpTs` in `ctx`.
template <typename... OpTs> void attachScalarBodies(MLIRContext *ctx) {
  (OpTs::template attachInterface<ScalarBodyModel<OpTs>>(*ctx), ...);
}

/// The scalar bodies of the arithmetic, math and relu ops; Elementwise.cpp.
void attachElementwiseScalarBodies(MLIRContext *ctx);
/// The scalar bodies of the pointwise activations; Activation.cpp.
void attachActivationScalarBodies(MLIRContext *ctx);

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

/// The type that arithmetic on `storage` elements is carried out in: f32 for
/// f16 and bf16 (PyTorch's CPU and CUDA kernels widen these to float,
/// accumulate there and round the result once to the storage type),
/// `storage` itself for every other type.
Type computeType(Type storage);

/// The scalar `value` converted to the float type `type` (arith.extf or
/// arith.truncf, which rounds to nearest even); `value` itself when it
/// already has that type or is not a float.
Value convertFloat(OpBuilder &b, Location loc, Value value, Type type);

/// The tensor `value` with its elements converted to `elementType` by
/// convertFloat in one linalg.generic; `value` itself when nothing changes.
Value convertElements(OpBuilder &b, Location loc, Value value,
                      Type elementType);

/// A scalar constant of `type` (a float or integer type) holding `value`.
Value buildScalar(OpBuilder &b, Location loc, Type type, double value);

/// Lowers an elementwise op to one broadcasting linalg.generic whose body is
/// `body(builder, loc, op, scalar operands)`. One pattern class serves every
/// elementwise op; each registration supplies its scalar computation:
///   patterns.add<ElementwiseLowering<WhereOp>>(ctx, [](OpBuilder &b, Location
///   l,
///       WhereOp, ValueRange x) -> Value { return b.create<arith::SelectOp>(l,
///       x); });
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

/// An operand of a generic and the loops indexing its dims, in order.
struct Indexed {
  Value value;
  SmallVector<int64_t> loops;
};

/// How many leading loops of a float sum over `extents` keep a partial sum
/// each (0: one accumulator), so a long sum stays accurate; the partials are
/// summed after (Loss.cpp has the rule; Normalization.cpp applies it to the
/// reduced dims of any reduction).
int64_t partialSumLoops(ArrayRef<int64_t> extents);

using GenericBody =
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// A linalg.generic with `numLoops` loops (reductions where `reduction` is
/// set) reading `ins` and accumulating into `outs`; `body` gets the scalars
/// of ins then outs and returns one value per out.
SmallVector<Value> buildGeneric(OpBuilder &b, Location loc, int64_t numLoops,
                                ArrayRef<bool> reduction, ArrayRef<Indexed> ins,
                                ArrayRef<Indexed> outs, GenericBody body);
/// lhs [..., m, k] · rhs [..., k, n] (rhs [..., n, k] when `transposeRhs`)
/// into `resultType` [..., m, n], batch dims broadcast with NumPy rules:
/// linalg.(batch_)matmul(_transpose_b) when the operands have the result's
/// batch dims, one linalg.generic with broadcasting maps otherwise
/// (Linear.cpp).
Value buildBatchMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                       RankedTensorType resultType, bool transposeRhs = false);

/// Training dropout of `input` (a ranked float tensor) with probability `p`
/// in (0, 1]: one linalg.generic that keeps element i (row-major) when
/// Philox4x32-10 of counter rng[1] + offset + i under key rng[0] says so and
/// scales survivors by 1/(1-p). `rng` is the tensor<2xi64> generator state.
/// Shared by nn.dropout and the attention weights (Dropout.cpp).
Value buildDropout(OpBuilder &b, Location loc, Value input, Value rng,
                   int64_t offset, double p);

/// softmax (log_softmax when `isLog`) of `x` along `dim` in [0, rank): the
/// maximum, Σ exp(x - max), then the normalization (Activation.cpp).
Value buildSoftmax(OpBuilder &b, Location loc, Value x, int64_t dim,
                   bool isLog = false);

} // namespace mlir::nn

#endif // NN_CODEGEN_NNTOLINALG_POPULATEPATTERNS_H
