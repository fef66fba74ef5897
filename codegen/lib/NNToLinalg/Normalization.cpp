//===- Normalization.cpp - nn normalization and reductions to linalg ---===//
//
// Lowerings of the ops in NNNormalizationOps.td. Every op becomes
// linalg.generic ops over the input's loops: reductions use reduction
// iterators on the reduced dims and write a tensor of the kept dims (keepdim
// is a tensor.expand_shape afterwards); normalizations are mean and variance
// reductions (two passes, as PyTorch: mean first, then the sum of squared
// deviations) followed by one elementwise generic that reads the statistics
// through projected indexing maps. group_norm works on the input expanded to
// [N, G, C/G, *]. Nothing is materialized at the input's shape except the
// result.
//
// The arg-reductions keep the first extreme index by scanning in order with
// a strict comparison; a later parallel or tiled lowering of them needs an
// index-aware combiner.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::nn;

SmallVector<Value>
mlir::nn::buildGeneric(OpBuilder &b, Location loc, int64_t numLoops,
                       ArrayRef<bool> reduction, ArrayRef<Indexed> ins,
                       ArrayRef<Indexed> outs, GenericBody body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  auto mapOf = [&](const Indexed &operand) {
    SmallVector<AffineExpr> exprs;
    for (int64_t loop : operand.loops)
      exprs.push_back(getAffineDimExpr(loop, ctx));
    return AffineMap::get(numLoops, 0, exprs, ctx);
  };
  SmallVector<Value> inValues, outValues;
  SmallVector<Type> resultTypes;
  for (const Indexed &in : ins) {
    maps.push_back(mapOf(in));
    inValues.push_back(in.value);
  }
  for (const Indexed &out : outs) {
    maps.push_back(mapOf(out));
    outValues.push_back(out.value);
    resultTypes.push_back(out.value.getType());
  }
  SmallVector<utils::IteratorType> iterators;
  for (bool r : reduction)
    iterators.push_back(r ? utils::IteratorType::reduction
                          : utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      loc, resultTypes, inValues, outValues, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        nested.create<linalg::YieldOp>(nestedLoc,
                                       body(nested, nestedLoc, args));
      });
  return llvm::to_vector_of<Value>(generic.getResults());
}

namespace {

/// The loops 0..n-1 not in `mask` (the kept dims), or those in it.
SmallVector<int64_t> loopsWhere(ArrayRef<bool> mask, bool value) {
  SmallVector<int64_t> loops;
  for (auto [i, m] : llvm::enumerate(mask))
    if (m == value)
      loops.push_back(i);
  return loops;
}

SmallVector<int64_t> allLoops(int64_t n) {
  return llvm::to_vector(llvm::seq<int64_t>(0, n));
}

/// The reduced dims of a rank-`rank` input as a mask (every dim when `dims`
/// is empty); negative dims count from the end. Empty on invalid dims.
std::optional<SmallVector<bool>> reductionMask(ArrayRef<int64_t> dims,
                                               int64_t rank) {
  SmallVector<bool> mask(rank, dims.empty());
  for (int64_t d : dims) {
    int64_t n = d < 0 ? d + rank : d;
    if (rank == 0 && (d == 0 || d == -1))
      continue;
    if (n < 0 || n >= rank || mask[n])
      return std::nullopt;
    mask[n] = true;
  }
  return mask;
}

/// The kept dims of `type` under `mask`.
RankedTensorType keptType(RankedTensorType type, ArrayRef<bool> mask,
                          Type elementType = {}) {
  SmallVector<int64_t> shape;
  for (auto [i, d] : llvm::enumerate(type.getShape()))
    if (!mask[i])
      shape.push_back(d);
  return RankedTensorType::get(shape, elementType ? elementType
                                                  : type.getElementType());
}

/// A tensor of `type` filled with `value`.
Value buildFilled(OpBuilder &b, Location loc, RankedTensorType type,
                  TypedAttr value) {
  Value empty =
      b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
  Value scalar = b.create<arith::ConstantOp>(loc, value);
  return b.create<linalg::FillOp>(loc, scalar, empty).getResult(0);
}

Value floatConst(OpBuilder &b, Location loc, Type type, double value) {
  return b.create<arith::ConstantOp>(loc, b.getFloatAttr(type, value));
}

/// `value` (of the kept dims) reshaped to `resultType`, which has size-1
/// dims where `mask` (one entry per result dim) is set; `value` itself when
/// the types agree (no keepdim).
Value expandToKeepdim(OpBuilder &b, Location loc, Value value,
                      RankedTensorType resultType, ArrayRef<bool> mask) {
  if (value.getType() == resultType)
    return value;
  // Each kept dim closes a group; unit dims join the group of the next kept
  // dim, trailing ones the last group. All dims reduced: no groups.
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t i = 0; i < resultType.getRank(); ++i) {
    pending.push_back(i);
    if (!mask[i]) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!groups.empty())
    groups.back().append(pending.begin(), pending.end());
  return b.create<tensor::ExpandShapeOp>(loc, resultType, value, groups);
}

/// Kinds of plain reductions.
enum class Reduction { sum, max, min };

/// The dims of a long float sum over `mask` (of `extents`) that a first
/// pass sums, keeping a partial sum for each index of the other reduced
/// dims, which a second pass sums; empty when one pass is accurate enough.
/// The first pass takes the trailing reduced dims (partialSumLoops has the
/// rule): a batch norm's statistics over [N, H, W] sum each row, then the
/// N·H row sums.
SmallVector<bool> firstPassOfSum(ArrayRef<int64_t> extents,
                                 ArrayRef<bool> mask) {
  SmallVector<int64_t> reducedExtents;
  for (auto [extent, reduced] : llvm::zip(extents, mask))
    if (reduced)
      reducedExtents.push_back(extent);
  int64_t leading = partialSumLoops(reducedExtents);
  if (leading == 0)
    return {};
  SmallVector<bool> first(mask);
  for (size_t d = 0, seen = 0; d < first.size(); ++d)
    if (mask[d] && static_cast<int64_t>(seen++) < leading)
      first[d] = false;
  return first;
}

/// What a sum over `mask` leaves to its second pass: the dims of the first
/// pass's partials (those `first` does not reduce) that `mask` reduces.
SmallVector<bool> secondPassOfSum(ArrayRef<bool> mask, ArrayRef<bool> first) {
  SmallVector<bool> second;
  for (auto [reduced, firstReduces] : llvm::zip(mask, first))
    if (!firstReduces)
      second.push_back(reduced);
  return second;
}

/// What a sum of `type` over `mask` accumulates in. Float32 sums in
/// float64, rounded once at the end, as PyTorch's CPU batch norm sums its
/// statistics and their gradients (nn's float32 batch-norm training then
/// stays as close to the float64 answer as PyTorch's) -- except a short sum
/// along the innermost dim alone (a layer norm's rows, which PyTorch sums
/// in float32 too): vectorized across rows, it would run on half the lanes
/// in float64 (a layer norm a quarter slower). Any other float type sums in
/// itself.
Type sumAccumulator(RankedTensorType type, ArrayRef<bool> mask) {
  Type element = type.getElementType();
  if (!element.isF32())
    return element;
  bool innermostOnly =
      !mask.empty() && mask.back() && llvm::count(mask, true) == 1;
  if (innermostOnly && firstPassOfSum(type.getShape(), mask).empty())
    return element;
  return Float64Type::get(type.getContext());
}

/// The sum of `input` (float) over `mask` into a tensor of the kept dims, in
/// sumAccumulator's type: `accumulate(x)` of each element (x itself by
/// default) widened and added up. A long sum keeps a partial sum per index
/// of the first pass's kept dims and sums those after.
Value buildWideSum(
    OpBuilder &b, Location loc, Value input, ArrayRef<bool> mask,
    function_ref<Value(OpBuilder &, Location, ValueRange)> accumulate = {},
    ArrayRef<Indexed> extra = {}) {
  auto type = llvm::cast<RankedTensorType>(input.getType());
  Type wide = sumAccumulator(type, mask);
  SmallVector<bool> first = firstPassOfSum(type.getShape(), mask);
  ArrayRef<bool> firstMask = first.empty() ? mask : ArrayRef<bool>(first);
  int64_t rank = type.getRank();
  SmallVector<Indexed> ins = {{input, allLoops(rank)}};
  ins.append(extra.begin(), extra.end());
  Value sum = buildGeneric(
      b, loc, rank, firstMask, ins,
      {{buildZeroFilled(b, loc, keptType(type, firstMask).clone(wide)),
        loopsWhere(firstMask, false)}},
      [&](OpBuilder &nb, Location nl, ValueRange args) -> SmallVector<Value> {
        Value x =
            accumulate ? accumulate(nb, nl, args.drop_back()) : args.front();
        x = convertFloat(nb, nl, x, wide);
        return {nb.create<arith::AddFOp>(nl, args.back(), x)};
      })[0];
  if (first.empty())
    return sum;
  return buildWideSum(b, loc, sum, secondPassOfSum(mask, first));
}

/// The reduction of `input` over `mask` into a tensor of the kept dims.
Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<bool> mask, Reduction kind) {
  auto type = llvm::cast<RankedTensorType>(input.getType());
  Type element = type.getElementType();
  bool isFloat = llvm::isa<FloatType>(element);
  if (kind == Reduction::sum && isFloat)
    return convertElements(b, loc, buildWideSum(b, loc, input, mask), element);
  RankedTensorType outType = keptType(type, mask);
  TypedAttr init;
  if (kind == Reduction::sum) {
    init = b.getZeroAttr(element);
  } else if (auto floatType = llvm::dyn_cast<FloatType>(element)) {
    init =
        b.getFloatAttr(element, APFloat::getInf(floatType.getFloatSemantics(),
                                                kind == Reduction::max));
  } else {
    unsigned width = element.getIntOrFloatBitWidth();
    init = b.getIntegerAttr(element, kind == Reduction::max
                                         ? APInt::getSignedMinValue(width)
                                         : APInt::getSignedMaxValue(width));
  }
  int64_t rank = type.getRank();
  return buildGeneric(
      b, loc, rank, mask, {{input, allLoops(rank)}},
      {{buildFilled(b, loc, outType, init), loopsWhere(mask, false)}},
      [&](OpBuilder &nb, Location nl, ValueRange args) -> SmallVector<Value> {
        Value x = args[0], acc = args[1];
        switch (kind) {
        case Reduction::sum: // integers: float sums are buildWideSum's
          return {nb.create<arith::AddIOp>(nl, acc, x).getResult()};
        case Reduction::max: // maximumf propagates NaN, as torch.amax.
          return {isFloat ? nb.create<arith::MaximumFOp>(nl, acc, x).getResult()
                          : nb.create<arith::MaxSIOp>(nl, acc, x).getResult()};
        case Reduction::min:
          return {isFloat ? nb.create<arith::MinimumFOp>(nl, acc, x).getResult()
                          : nb.create<arith::MinSIOp>(nl, acc, x).getResult()};
        }
        llvm_unreachable("unknown reduction");
      })[0];
}

/// `value` (float, any shape) divided elementwise by the constant `divisor`
/// in its own type, each quotient rounded once to `element` (by default
/// the same type).
Value divideBy(OpBuilder &b, Location loc, Value value, double divisor,
               Type element = {}) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  Type t = type.getElementType();
  if (!element)
    element = t;
  return buildBroadcastingElementwise(
      b, loc, type.clone(element), value,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value d = floatConst(nb, nl, t, divisor);
        return convertFloat(nb, nl, nb.create<arith::DivFOp>(nl, args[0], d),
                            element);
      });
}

/// Number of elements of `type` in the dims of `mask`.
int64_t reducedCount(RankedTensorType type, ArrayRef<bool> mask) {
  int64_t n = 1;
  for (auto [i, d] : llvm::enumerate(type.getShape()))
    if (mask[i])
      n *= d;
  return n;
}

/// Mean of `input` over `mask` (kept dims) and the sum of squared deviations
/// from it (kept dims, in sumAccumulator's type): the two passes every
/// variance here uses. The mean is divided before it is rounded to the
/// input's type; the deviations from the rounded mean are squared wide.
std::pair<Value, Value> buildMeanAndSquaredDeviations(OpBuilder &b,
                                                      Location loc, Value input,
                                                      ArrayRef<bool> mask) {
  auto type = llvm::cast<RankedTensorType>(input.getType());
  Type wide = sumAccumulator(type, mask);
  Value mean = divideBy(b, loc, buildWideSum(b, loc, input, mask),
                        static_cast<double>(reducedCount(type, mask)),
                        type.getElementType());
  Value squares = buildWideSum(
      b, loc, input, mask,
      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Value d = convertFloat(
            nb, nl, nb.create<arith::SubFOp>(nl, args[0], args[1]), wide);
        return nb.create<arith::MulFOp>(nl, d, d);
      },
      {{mean, loopsWhere(mask, false)}});
  return {mean, squares};
}

/// 1 / sqrt(squares / count + eps), elementwise, computed in the type of
/// `squares` and rounded once to `element`.
Value buildInvStd(OpBuilder &b, Location loc, Value squares, double count,
                  double eps, Type element) {
  auto type = llvm::cast<RankedTensorType>(squares.getType());
  return buildBroadcastingElementwise(
      b, loc, type.clone(element), squares,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Type t = type.getElementType();
        Value var =
            nb.create<arith::DivFOp>(nl, args[0], floatConst(nb, nl, t, count));
        Value shifted =
            nb.create<arith::AddFOp>(nl, var, floatConst(nb, nl, t, eps));
        Value root = nb.create<math::SqrtOp>(nl, shifted);
        Value inv =
            nb.create<arith::DivFOp>(nl, floatConst(nb, nl, t, 1.0), root);
        return convertFloat(nb, nl, inv, element);
      });
}

/// (x - mean) * invstd [* weight] [+ bias] over the loops of `input`; mean
/// and invstd indexed by `statLoops`, weight and bias by `affineLoops`.
Value buildNormalize(OpBuilder &b, Location loc, Value input, Value mean,
                     Value invstd, ArrayRef<int64_t> statLoops, Value weight,
                     Value bias, ArrayRef<int64_t> affineLoops) {
  auto type = llvm::cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<Indexed> ins = {{input, allLoops(rank)},
                              {mean, SmallVector<int64_t>(statLoops)},
                              {invstd, SmallVector<int64_t>(statLoops)}};
  if (weight)
    ins.push_back({weight, SmallVector<int64_t>(affineLoops)});
  if (bias)
    ins.push_back({bias, SmallVector<int64_t>(affineLoops)});
  Value init =
      b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
  return buildGeneric(
      b, loc, rank, SmallVector<bool>(rank, false), ins,
      {{init, allLoops(rank)}},
      [&](OpBuilder &nb, Location nl, ValueRange args) -> SmallVector<Value> {
        Value centered = nb.create<arith::SubFOp>(nl, args[0], args[1]);
        Value y = nb.create<arith::MulFOp>(nl, centered, args[2]);
        unsigned next = 3;
        if (weight)
          y = nb.create<arith::MulFOp>(nl, y, args[next++]);
        if (bias)
          y = nb.create<arith::AddFOp>(nl, y, args[next++]);
        return {y};
      })[0];
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename OpTy, Reduction kind, bool isMean = false>
struct ReductionLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = llvm::cast<RankedTensorType>(op.getInput().getType());
    auto mask = reductionMask(op.getDims(), type.getRank());
    if (!mask)
      return rewriter.notifyMatchFailure(op, "dims are out of range or repeat");
    Location loc = op.getLoc();
    // f16/bf16 reduce in f32 and round once, as PyTorch accumulates them.
    Type storage = type.getElementType(), compute = computeType(storage);
    Value input = convertElements(rewriter, loc, op.getInput(), compute);
    // A float sum is divided (mean) in its accumulator's type, then rounded
    // (float64 to a half type by way of float32: no libcall).
    Value result = kind == Reduction::sum && llvm::isa<FloatType>(compute)
                       ? buildWideSum(rewriter, loc, input, *mask)
                       : buildReduction(rewriter, loc, input, *mask, kind);
    result = isMean ? divideBy(rewriter, loc, result,
                               static_cast<double>(reducedCount(type, *mask)),
                               compute)
                    : convertElements(rewriter, loc, result, compute);
    result = convertElements(rewriter, loc, result, storage);
    rewriter.replaceOp(
        op, expandToKeepdim(rewriter, loc, result,
                            llvm::cast<RankedTensorType>(op.getType()), *mask));
    return success();
  }
};

using SumOpLowering = ReductionLowering<SumOp, Reduction::sum>;
using MeanOpLowering = ReductionLowering<MeanOp, Reduction::sum, true>;
using AmaxOpLowering = ReductionLowering<AmaxOp, Reduction::max>;
using AminOpLowering = ReductionLowering<AminOp, Reduction::min>;

struct VarOpLowering : public OpRewritePattern<VarOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(VarOp op,
                                PatternRewriter &rewriter) const override {
    auto type = llvm::cast<RankedTensorType>(op.getInput().getType());
    auto mask = reductionMask(op.getDims(), type.getRank());
    if (!mask)
      return rewriter.notifyMatchFailure(op, "dims are out of range or repeat");
    Location loc = op.getLoc();
    Value squares =
        buildMeanAndSquaredDeviations(rewriter, loc, op.getInput(), *mask)
            .second;
    // max(0, N - correction), as torch.var: a zero divisor gives inf or NaN.
    double divisor =
        std::max<double>(0.0, static_cast<double>(reducedCount(type, *mask)) -
                                  static_cast<double>(op.getCorrection()));
    Value result =
        divideBy(rewriter, loc, squares, divisor, type.getElementType());
    rewriter.replaceOp(
        op, expandToKeepdim(rewriter, loc, result,
                            llvm::cast<RankedTensorType>(op.getType()), *mask));
    return success();
  }
};

/// argmax / argmin: a two-output reduction (extreme value, its index).
template <typename OpTy, bool isMax>
struct ArgReductionLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto type = llvm::cast<RankedTensorType>(input.getType());
    if (type.getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "empty input");
    int64_t dim = 0;
    if (auto dimAttr = op.getDimAttr()) {
      dim = dimAttr.getInt();
      int64_t bound = std::max<int64_t>(type.getRank(), 1);
      if (dim < -bound || dim >= bound)
        return rewriter.notifyMatchFailure(op, "dim out of range");
      if (dim < 0)
        dim += bound;
    }
    // Flattened (no dim) or scalar input: scan a 1-D view.
    if (!op.getDimAttr() || type.getRank() == 0) {
      auto flat =
          RankedTensorType::get({type.getNumElements()}, type.getElementType());
      if (type.getRank() == 0)
        input = rewriter.create<tensor::ExpandShapeOp>(
            loc, flat, input, ArrayRef<ReassociationIndices>{});
      else if (type.getRank() != 1)
        input = rewriter.create<tensor::CollapseShapeOp>(
            loc, flat, input,
            ArrayRef<ReassociationIndices>{
                ReassociationIndices(allLoops(type.getRank()))});
      type = flat;
      dim = 0;
    }
    int64_t rank = type.getRank();
    SmallVector<bool> mask(rank, false);
    mask[dim] = true;
    Type element = type.getElementType();
    bool isFloat = llvm::isa<FloatType>(element);
    TypedAttr init;
    if (auto floatType = llvm::dyn_cast<FloatType>(element))
      init = rewriter.getFloatAttr(
          element, APFloat::getInf(floatType.getFloatSemantics(), isMax));
    else
      init = rewriter.getIntegerAttr(
          element,
          isMax ? APInt::getSignedMinValue(element.getIntOrFloatBitWidth())
                : APInt::getSignedMaxValue(element.getIntOrFloatBitWidth()));
    SmallVector<int64_t> kept = loopsWhere(mask, false);
    auto i64 = rewriter.getI64Type();
    Value values = buildFilled(rewriter, loc, keptType(type, mask), init);
    Value indices = buildFilled(rewriter, loc, keptType(type, mask, i64),
                                rewriter.getI64IntegerAttr(0));
    auto results = buildGeneric(
        rewriter, loc, rank, mask, {{input, allLoops(rank)}},
        {{values, kept}, {indices, kept}},
        [&](OpBuilder &nb, Location nl, ValueRange args) -> SmallVector<Value> {
          Value x = args[0], best = args[1], bestIndex = args[2];
          Value take;
          if (isFloat) {
            // Strictly better keeps the first index; NaN beats any number.
            Value better = nb.create<arith::CmpFOp>(
                nl,
                isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
                x, best);
            Value xNaN =
                nb.create<arith::CmpFOp>(nl, arith::CmpFPredicate::UNO, x, x);
            Value bestNumber = nb.create<arith::CmpFOp>(
                nl, arith::CmpFPredicate::ORD, best, best);
            Value nanFirst = nb.create<arith::AndIOp>(nl, xNaN, bestNumber);
            take = nb.create<arith::OrIOp>(nl, better, nanFirst);
          } else {
            take = nb.create<arith::CmpIOp>(nl,
                                            isMax ? arith::CmpIPredicate::sgt
                                                  : arith::CmpIPredicate::slt,
                                            x, best);
          }
          Value index = nb.create<arith::IndexCastOp>(
              nl, i64, nb.create<linalg::IndexOp>(nl, dim));
          return {nb.create<arith::SelectOp>(nl, take, x, best),
                  nb.create<arith::SelectOp>(nl, take, index, bestIndex)};
        });
    // keepdim: the scanned dim (or, flattened, every dim) becomes size 1.
    auto resultType = llvm::cast<RankedTensorType>(op.getType());
    SmallVector<bool> resultMask(resultType.getRank(), true);
    if (op.getDimAttr() && resultType.getRank() > 0)
      for (int64_t i = 0; i < resultType.getRank(); ++i)
        resultMask[i] = i == dim;
    rewriter.replaceOp(
        op, expandToKeepdim(rewriter, loc, results[1], resultType, resultMask));
    return success();
  }
};

using ArgmaxOpLowering = ArgReductionLowering<ArgmaxOp, true>;
using ArgminOpLowering = ArgReductionLowering<ArgminOp, false>;

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

struct LayerNormOpLowering : public OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    auto type = llvm::cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = type.getRank();
    int64_t inner = op.getNormalizedShape().size();
    if (inner == 0 || inner > rank)
      return rewriter.notifyMatchFailure(op, "normalized_shape does not fit");
    Location loc = op.getLoc();
    SmallVector<bool> mask(rank, false);
    for (int64_t i = rank - inner; i < rank; ++i)
      mask[i] = true;
    auto [mean, squares] =
        buildMeanAndSquaredDeviations(rewriter, loc, op.getInput(), mask);
    Value invstd = buildInvStd(
        rewriter, loc, squares, static_cast<double>(reducedCount(type, mask)),
        op.getEps().convertToDouble(), type.getElementType());
    rewriter.replaceOp(op, buildNormalize(rewriter, loc, op.getInput(), mean,
                                          invstd, loopsWhere(mask, false),
                                          op.getWeight(), op.getBias(),
                                          loopsWhere(mask, true)));
    return success();
  }
};

struct GroupNormOpLowering : public OpRewritePattern<GroupNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GroupNormOp op,
                                PatternRewriter &rewriter) const override {
    auto type = llvm::cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = type.getRank();
    int64_t groups = op.getNumGroups();
    if (rank < 2 || groups <= 0 || type.getDimSize(1) % groups != 0)
      return rewriter.notifyMatchFailure(op, "channels do not split into "
                                             "num_groups groups");
    Location loc = op.getLoc();
    Type element = type.getElementType();
    // [N, C, *] → [N, G, C/G, *].
    SmallVector<int64_t> shape = {type.getDimSize(0), groups,
                                  type.getDimSize(1) / groups};
    SmallVector<ReassociationIndices> reassociation = {{0}, {1, 2}};
    for (int64_t i = 2; i < rank; ++i) {
      shape.push_back(type.getDimSize(i));
      reassociation.push_back({i + 1});
    }
    auto groupedType = RankedTensorType::get(shape, element);
    Value grouped = rewriter.create<tensor::ExpandShapeOp>(
        loc, groupedType, op.getInput(), reassociation);
    auto expandChannels = [&](Value v) -> Value {
      if (!v)
        return v;
      return rewriter.create<tensor::ExpandShapeOp>(
          loc, RankedTensorType::get({shape[1], shape[2]}, element), v,
          ArrayRef<ReassociationIndices>{{0, 1}});
    };
    SmallVector<bool> mask(rank + 1, true);
    mask[0] = mask[1] = false;
    auto [mean, squares] =
        buildMeanAndSquaredDeviations(rewriter, loc, grouped, mask);
    Value invstd =
        buildInvStd(rewriter, loc, squares,
                    static_cast<double>(reducedCount(groupedType, mask)),
                    op.getEps().convertToDouble(), element);
    Value y = buildNormalize(rewriter, loc, grouped, mean, invstd, {0, 1},
                             expandChannels(op.getWeight()),
                             expandChannels(op.getBias()), {1, 2});
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, type, y,
                                                         reassociation);
    return success();
  }
};

/// Every dim but the channel dim 1 of a rank-`rank` batch_norm input.
SmallVector<bool> batchNormMask(int64_t rank) {
  SmallVector<bool> mask(rank, true);
  mask[1] = false;
  return mask;
}

struct BatchNormOpLowering : public OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    auto type = llvm::cast<RankedTensorType>(op.getInput().getType());
    if (type.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "input is not [N, C, *]");
    Location loc = op.getLoc();
    // invstd from var with count 1: 1 / sqrt(var + eps).
    Value invstd =
        buildInvStd(rewriter, loc, op.getVar(), 1.0,
                    op.getEps().convertToDouble(), type.getElementType());
    rewriter.replaceOp(op, buildNormalize(rewriter, loc, op.getInput(),
                                          op.getMean(), invstd, {1},
                                          op.getWeight(), op.getBias(), {1}));
    return success();
  }
};

struct BatchNormTrainingOpLowering
    : public OpRewritePattern<BatchNormTrainingOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormTrainingOp op,
                                PatternRewriter &rewriter) const override {
    auto type = llvm::cast<RankedTensorType>(op.getInput().getType());
    if (type.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "input is not [N, C, *]");
    Location loc = op.getLoc();
    Type element = type.getElementType();
    SmallVector<bool> mask = batchNormMask(type.getRank());
    double count = static_cast<double>(reducedCount(type, mask));
    auto [mean, squares] =
        buildMeanAndSquaredDeviations(rewriter, loc, op.getInput(), mask);
    Value invstd = buildInvStd(rewriter, loc, squares, count,
                               op.getEps().convertToDouble(), element);
    Value y = buildNormalize(rewriter, loc, op.getInput(), mean, invstd, {1},
                             op.getWeight(), op.getBias(), {1});

    // The count incremented, and the averaging factor: momentum, or
    // 1 / (count + 1).
    Value newCount;
    if (Value count = op.getNumBatchesTracked())
      newCount = buildBroadcastingElementwise(
          rewriter, loc, llvm::cast<RankedTensorType>(count.getType()), count,
          [](OpBuilder &nb, Location nl, ValueRange args) {
            Value one =
                nb.create<arith::ConstantOp>(nl, nb.getI64IntegerAttr(1));
            return nb.create<arith::AddIOp>(nl, args[0], one).getResult();
          });
    Value factor;
    if (auto momentum = op.getMomentum()) {
      factor = floatConst(rewriter, loc, element, momentum->convertToDouble());
    } else {
      if (!newCount)
        return rewriter.notifyMatchFailure(
            op, "momentum=None needs num_batches_tracked");
      Value n = rewriter.create<tensor::ExtractOp>(loc, newCount, ValueRange{});
      Value nf = rewriter.create<arith::SIToFPOp>(loc, element, n);
      factor = rewriter.create<arith::DivFOp>(
          loc, floatConst(rewriter, loc, element, 1.0), nf);
    }
    auto statType = llvm::cast<RankedTensorType>(mean.getType());
    // (1 - f) * running + f * batch, as PyTorch's CPU kernel; running_var
    // takes the unbiased batch variance.
    auto update = [&](Value running, Value batch) {
      return buildBroadcastingElementwise(
          rewriter, loc, statType, ValueRange{running, batch},
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            Value stat = args[1];
            Value keep = nb.create<arith::SubFOp>(
                nl, floatConst(nb, nl, element, 1.0), factor);
            Value fresh = nb.create<arith::MulFOp>(nl, factor, stat);
            Value old = nb.create<arith::MulFOp>(nl, keep, args[0]);
            return nb.create<arith::AddFOp>(nl, fresh, old).getResult();
          });
    };
    Value newMean = update(op.getRunningMean(), mean);
    Value newVar = update(op.getRunningVar(), divideBy(rewriter, loc, squares,
                                                       count - 1.0, element));
    SmallVector<Value> results = {y, newMean, newVar};
    if (newCount)
      results.push_back(newCount);
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mlir::nn::populateNormalizationPatterns(RewritePatternSet &patterns) {
  patterns.add<SumOpLowering, MeanOpLowering, AmaxOpLowering, AminOpLowering,
               VarOpLowering, ArgmaxOpLowering, ArgminOpLowering,
               LayerNormOpLowering, GroupNormOpLowering, BatchNormOpLowering,
               BatchNormTrainingOpLowering>(patterns.getContext());
}
