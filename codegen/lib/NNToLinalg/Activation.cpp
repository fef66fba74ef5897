//===- Activation.cpp - nn activation functions to linalg -----------------===//
//
// Lowerings of the ops in NNActivationOps.td. Pointwise activations are one
// broadcasting linalg.generic each, built from its scalar body; softmax
// is five: the maximum along `dim`, exp(x - max), its sum, 1 / sum per row,
// and the normalization; log_softmax four (the sum computes its own exp,
// log(sum) per row, x - max - log(sum)). On f16/bf16 all of them compute in
// f32 and round once (buildPointwiseScalar widens the pointwise ones
// likewise).
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nn;

namespace {

/// 1 / (1 + exp(-x)).
Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Value one = buildScalar(b, loc, x.getType(), 1.0);
  Value e = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x));
  return b.create<arith::DivFOp>(loc, one,
                                 b.create<arith::AddFOp>(loc, one, e));
}

/// PyTorch's gelu: exact with erf, or its tanh approximation.
Value buildGelu(OpBuilder &b, Location loc, Value x, GeluApproximation mode) {
  Type t = x.getType();
  Value half = buildScalar(b, loc, t, 0.5);
  Value one = buildScalar(b, loc, t, 1.0);
  Value inner;
  if (mode == GeluApproximation::none) {
    Value scaled =
        b.create<arith::MulFOp>(loc, x, buildScalar(b, loc, t, M_SQRT1_2));
    inner = b.create<math::ErfOp>(loc, scaled);
  } else {
    // tanh(√(2/π) · (x + 0.044715 · x³))
    Value cube =
        b.create<arith::MulFOp>(loc, x, b.create<arith::MulFOp>(loc, x, x));
    Value poly = b.create<arith::AddFOp>(
        loc, x,
        b.create<arith::MulFOp>(loc, buildScalar(b, loc, t, 0.044715), cube));
    Value k = buildScalar(b, loc, t, M_2_SQRTPI * M_SQRT1_2); // √(2/π)
    inner = b.create<math::TanhOp>(loc, b.create<arith::MulFOp>(loc, k, poly));
  }
  Value halfX = b.create<arith::MulFOp>(loc, half, x);
  return b.create<arith::MulFOp>(loc, halfX,
                                 b.create<arith::AddFOp>(loc, one, inner));
}

/// The indexing map of a tensor reduced along `dim` (the dimension dropped).
AffineMap reducedMap(MLIRContext *ctx, int64_t rank, int64_t dim) {
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i)
    if (i != dim)
      exprs.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// Reduces `input` along `dim` with `combine(element, accumulator)` starting
/// from `init`, optionally reading `extra` (shaped like the reduced result)
/// in the body: combine(b, loc, element, extraElement, accumulator).
Value reduceAlong(
    OpBuilder &b, Location loc, Value input, int64_t dim, double init,
    Value extra,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> combine) {
  auto type = llvm::cast<RankedTensorType>(input.getType());
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i)
    if (i != dim)
      shape.push_back(type.getDimSize(i));
  Type elementType = type.getElementType();
  Value empty = b.create<tensor::EmptyOp>(loc, shape, elementType);
  Value filled = b.create<linalg::FillOp>(
                      loc, buildScalar(b, loc, elementType, init), empty)
                     .getResult(0);
  SmallVector<Value> inputs = {input};
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  if (extra) {
    inputs.push_back(extra);
    maps.push_back(reducedMap(ctx, rank, dim));
  }
  maps.push_back(reducedMap(ctx, rank, dim));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators[dim] = utils::IteratorType::reduction;
  auto generic = b.create<linalg::GenericOp>(
      loc, filled.getType(), inputs, filled, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = combine(nested, nestedLoc, args[0],
                               extra ? args[1] : Value(), args.back());
        nested.create<linalg::YieldOp>(nestedLoc, result);
      });
  return generic.getResult(0);
}

/// The body of buildPerElement: (element, perRow...) -> result element.
using PerElementBody = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// body(element, perRow...) for every element of `element`, where each
/// `perRow` tensor has `element`'s shape without `dim` (one value per row
/// along `dim`, broadcast over it).
Value buildPerElement(OpBuilder &b, Location loc, Value element, int64_t dim,
                      ValueRange perRow, PerElementBody body) {
  auto type = llvm::cast<RankedTensorType>(element.getType());
  int64_t rank = type.getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<Value> inputs = {element};
  inputs.append(perRow.begin(), perRow.end());
  SmallVector<AffineMap> maps(inputs.size(),
                              reducedMap(b.getContext(), rank, dim));
  maps.front() = identity;
  maps.push_back(identity);
  Value empty =
      b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      loc, type, inputs, empty, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        nb.create<linalg::YieldOp>(l, body(nb, l, args.drop_back()));
      });
  return generic.getResult(0);
}

/// softmax and log_softmax (buildSoftmax).
template <typename SourceOp, bool isLog>
struct SoftmaxLowering : public OpRewritePattern<SourceOp> {
  using OpRewritePattern<SourceOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(SourceOp op,
                                PatternRewriter &rewriter) const override {
    auto type = llvm::cast<RankedTensorType>(op.getType());
    if (type.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "rank-0 softmax is not lowered");
    // f16/bf16: the max, the sum and the normalization in f32, the result
    // rounded once, as PyTorch's kernels accumulate these dtypes in float.
    Location loc = op.getLoc();
    Type storage = type.getElementType();
    Value input =
        convertElements(rewriter, loc, op.getInput(), computeType(storage));
    Value result =
        buildSoftmax(rewriter, loc, input, op.getNormalizedDim(), isLog);
    rewriter.replaceOp(op, convertElements(rewriter, loc, result, storage));
    return success();
  }
};

} // namespace

Value mlir::nn::buildSoftmax(OpBuilder &b, Location loc, Value x, int64_t dim,
                             bool isLog) {
  auto shiftedExp = [](OpBuilder &nb, Location l, Value v, Value m) -> Value {
    return nb.create<math::ExpOp>(l, nb.create<arith::SubFOp>(l, v, m));
  };
  Value max = reduceAlong(
      b, loc, x, dim, -INFINITY, Value(),
      [](OpBuilder &nb, Location l, Value v, Value, Value acc) -> Value {
        return nb.create<arith::MaximumFOp>(l, v, acc);
      });
  // softmax reads exp(x - max) twice, in the sum and in the result: it is
  // an op of its own, which nn-fuse-elementwise-ops does not inline into
  // either (two users), so that each element's exp is computed once; in
  // nn-tile-and-vectorize's row tiles it stays in cache between its two
  // reads. log_softmax needs it only in the sum.
  Value exps;
  Value sum;
  if (isLog) {
    sum = reduceAlong(
        b, loc, x, dim, 0.0, max,
        [&](OpBuilder &nb, Location l, Value v, Value m, Value acc) -> Value {
          return nb.create<arith::AddFOp>(l, acc, shiftedExp(nb, l, v, m));
        });
  } else {
    exps = buildPerElement(b, loc, x, dim, max,
                           [&](OpBuilder &nb, Location l, ValueRange args) {
                             return shiftedExp(nb, l, args[0], args[1]);
                           });
    sum = reduceAlong(
        b, loc, exps, dim, 0.0, Value(),
        [](OpBuilder &nb, Location l, Value e, Value, Value acc) -> Value {
          return nb.create<arith::AddFOp>(l, acc, e);
        });
  }
  // What each row needs of its sum, once per row (nn-fuse-elementwise-ops
  // does not inline it into the per-element op, which broadcasts it):
  // log(sum), or 1 / sum, which the elements are multiplied by, as
  // PyTorch's softmax kernel does (one rounding more than a division).
  Value perRow = buildBroadcastingElementwise(
      b, loc, llvm::cast<RankedTensorType>(sum.getType()), sum,
      [isLog](OpBuilder &nb, Location l, ValueRange args) -> Value {
        if (isLog)
          return nb.create<math::LogOp>(l, args[0]);
        Value one = nb.create<arith::ConstantOp>(
            l, nb.getFloatAttr(args[0].getType(), 1.0));
        return nb.create<arith::DivFOp>(l, one, args[0]);
      });
  if (isLog)
    return buildPerElement(
        b, loc, x, dim, {max, perRow},
        [](OpBuilder &nb, Location l, ValueRange args) {
          Value shifted = nb.create<arith::SubFOp>(l, args[0], args[1]);
          return nb.create<arith::SubFOp>(l, shifted, args[2]).getResult();
        });
  return buildPerElement(
      b, loc, exps, dim, perRow,
      [](OpBuilder &nb, Location l, ValueRange args) {
        return nb.create<arith::MulFOp>(l, args[0], args[1]).getResult();
      });
}

// The scalar bodies of the pointwise activations (ScalarBodyModel finds them
// by argument-dependent lookup).
namespace mlir::nn {
static Value scalarBody(SigmoidOp, OpBuilder &b, Location loc, ValueRange x) {
  return sigmoid(b, loc, x[0]);
}
static Value scalarBody(TanhOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::TanhOp>(loc, x[0]);
}
static Value scalarBody(SiluOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<arith::MulFOp>(loc, x[0], sigmoid(b, loc, x[0]));
}
static Value scalarBody(GeluOp gelu, OpBuilder &b, Location loc, ValueRange x) {
  return buildGelu(b, loc, x[0], gelu.getApproximate());
}
static Value scalarBody(LeakyReluOp leaky, OpBuilder &b, Location loc,
                        ValueRange x) {
  // x > 0 ? x : x * slope (NaN falls to the second arm and stays NaN).
  Value zero = buildScalar(b, loc, x[0].getType(), 0.0);
  Value slope = buildScalar(b, loc, x[0].getType(),
                            leaky.getNegativeSlope().convertToDouble());
  Value positive =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, x[0], zero);
  return b.create<arith::SelectOp>(loc, positive, x[0],
                                   b.create<arith::MulFOp>(loc, x[0], slope));
}
static Value scalarBody(ClampOp clamp, OpBuilder &b, Location loc,
                        ValueRange x) {
  Value v = x[0];
  if (auto min = clamp.getMin())
    v = b.create<arith::MaximumFOp>(
        loc, v, buildScalar(b, loc, v.getType(), min->convertToDouble()));
  if (auto max = clamp.getMax())
    v = b.create<arith::MinimumFOp>(
        loc, v, buildScalar(b, loc, v.getType(), max->convertToDouble()));
  return v;
}
} // namespace mlir::nn

void mlir::nn::attachActivationScalarBodies(MLIRContext *ctx) {
  attachScalarBodies<SigmoidOp, TanhOp, SiluOp, GeluOp, LeakyReluOp, ClampOp>(
      ctx);
}

void mlir::nn::populateActivationPatterns(RewritePatternSet &patterns) {
  // The pointwise activations lower through PointwiseLowering
  // (Elementwise.cpp) with their scalar bodies above.
  patterns.add<SoftmaxLowering<SoftmaxOp, false>,
               SoftmaxLowering<LogSoftmaxOp, true>>(patterns.getContext());
}
