//===- Shape.cpp - nn reshaping, slicing, joining and indexing to linalg
//---===//
//
// Lowerings of the ops in NNShapeOps.td:
//   reshape, flatten, squeeze, unsqueeze → tensor.collapse_shape /
//       tensor.expand_shape when the new shape only regroups dimensions,
//       else tensor.reshape with a constant shape;
//   permute, transpose → linalg.transpose;
//   expand → a linalg.generic whose input map broadcasts;
//   slice, split → tensor.extract_slice (strided), copied with linalg.copy
//       when the piece is not one contiguous run of the input;
//   cat, stack → linalg.copy of each input into its slice of an empty
//       tensor (tensor.extract_slice / tensor.insert_slice around it);
//   index_select, gather, embedding → a linalg.generic over the result whose
//       body reads the source with tensor.extract.
// The generated code does not check indices: an index that comes from a
// model input is checked against the op's range at the boundary
// (describeArtifact's "index_checks", Artifact::run), as PyTorch checks it;
// one computed in the graph is in range by construction.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::nn;

namespace {

RankedTensorType rankedType(Value value) {
  return llvm::cast<RankedTensorType>(value.getType());
}

/// A PyTorch dim (negative counts from the end) made non-negative; the op
/// has verified that it is in range.
int64_t normalize(int64_t dim, int64_t rank) {
  return dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
}

/// `input` reshaped to `resultType` (same element count): nothing when the
/// shape is unchanged, a collapse or expand when the dimensions only merge or
/// split, otherwise tensor.reshape with a constant shape operand.
Value buildReshape(OpBuilder &b, Location loc, Value input,
                   RankedTensorType resultType) {
  auto inputType = rankedType(input);
  if (inputType == resultType)
    return input;
  int64_t inRank = inputType.getRank(), outRank = resultType.getRank();
  std::optional<SmallVector<ReassociationIndices>> reassociation;
  if (inRank == 0 || outRank == 0)
    reassociation = SmallVector<ReassociationIndices>{}; // all sizes are 1
  else if (inRank != outRank)
    reassociation = getReassociationIndicesForReshape(inputType, resultType);
  if (reassociation) {
    if (inRank > outRank)
      return b.create<tensor::CollapseShapeOp>(loc, resultType, input,
                                               *reassociation);
    return b.create<tensor::ExpandShapeOp>(loc, resultType, input,
                                           *reassociation);
  }
  Value shape = b.create<arith::ConstantOp>(
      loc, b.getI64TensorAttr(resultType.getShape()));
  return b.create<tensor::ReshapeOp>(loc, resultType, input, shape);
}

/// Every op that only changes the shape (not the element order).
template <typename OpTy>
struct ReshapeLikeLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto inputType = rankedType(op.getInput());
    auto resultType = rankedType(op.getResult());
    if (!inputType.hasStaticShape() || !resultType.hasStaticShape() ||
        inputType.getNumElements() != resultType.getNumElements())
      return rewriter.notifyMatchFailure(
          op, "needs static shapes with the same number of elements");
    rewriter.replaceOp(
        op, buildReshape(rewriter, op.getLoc(), op.getInput(), resultType));
    return success();
  }
};

/// permute and transpose.
template <typename OpTy>
struct PermutationLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = rankedType(op.getResult());
    SmallVector<int64_t> perm = op.getPermutation();
    if (!isPermutationVector(perm))
      return rewriter.notifyMatchFailure(op, "dims are not a permutation");
    if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()))) {
      rewriter.replaceOp(op, op.getInput());
      return success();
    }
    Value init = rewriter.create<tensor::EmptyOp>(
        op.getLoc(), resultType.getShape(), resultType.getElementType());
    auto transpose = rewriter.create<linalg::TransposeOp>(
        op.getLoc(), op.getInput(), init, perm);
    rewriter.replaceOp(op, transpose.getResult());
    return success();
  }
};

struct ExpandOpLowering : public OpRewritePattern<ExpandOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ExpandOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = rankedType(op.getResult());
    if (resultType == op.getInput().getType()) {
      rewriter.replaceOp(op, op.getInput());
      return success();
    }
    Value result = buildBroadcastingElementwise(
        rewriter, op.getLoc(), resultType, op.getInput(),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Offsets, sizes and strides of a slice of `type` along `dim`.
struct SliceBounds {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

SliceBounds sliceAlong(OpBuilder &b, RankedTensorType type, int64_t dim,
                       int64_t offset, int64_t size, int64_t stride = 1) {
  SliceBounds s;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    s.offsets.push_back(b.getIndexAttr(d == dim ? offset : 0));
    s.sizes.push_back(b.getIndexAttr(d == dim ? size : type.getDimSize(d)));
    s.strides.push_back(b.getIndexAttr(d == dim ? stride : 1));
  }
  return s;
}

/// `slice` (an extract_slice of a `sourceType` tensor) copied into a fresh
/// tensor with linalg.copy unless it is one contiguous run of the source.
/// A strided slice bufferizes to a strided memref view; copying such a view
/// to a contiguous buffer (when it is returned, or written in place) would be
/// a memref.copy that the LLVM lowering turns into a call to the runtime
/// library's memrefCopy, which compiled models do not link. The linalg.copy
/// becomes plain loops instead.
Value materializeIfStrided(OpBuilder &b, Location loc, Value slice,
                           RankedTensorType sourceType, int64_t dim,
                           int64_t step) {
  auto type = rankedType(slice);
  bool contiguous = step == 1 || type.getDimSize(dim) <= 1;
  for (int64_t d = 0; d < dim && contiguous; ++d)
    contiguous = type.getDimSize(d) == 1;
  for (int64_t d = dim + 1; d < type.getRank() && contiguous; ++d)
    contiguous = type.getDimSize(d) == sourceType.getDimSize(d);
  if (contiguous)
    return slice;
  Value init =
      b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
  return b.create<linalg::CopyOp>(loc, slice, init).getResult(0);
}

struct SliceOpLowering : public OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto inputType = rankedType(op.getInput());
    auto resultType = rankedType(op.getResult());
    if (inputType.getRank() == 0 || op.getStep() < 1)
      return rewriter.notifyMatchFailure(op, "needs a rank >= 1 input and a "
                                             "positive step");
    int64_t dim = normalize(op.getDim(), inputType.getRank());
    SliceBounds s = sliceAlong(rewriter, inputType, dim, op.getStart(),
                               resultType.getDimSize(dim), op.getStep());
    Value slice = rewriter.create<tensor::ExtractSliceOp>(
        op.getLoc(), resultType, op.getInput(), s.offsets, s.sizes, s.strides);
    rewriter.replaceOp(op, materializeIfStrided(rewriter, op.getLoc(), slice,
                                                inputType, dim, op.getStep()));
    return success();
  }
};

struct SplitOpLowering : public OpRewritePattern<SplitOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SplitOp op,
                                PatternRewriter &rewriter) const override {
    auto inputType = rankedType(op.getInput());
    if (inputType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "cannot split a scalar");
    int64_t dim = normalize(op.getDim(), inputType.getRank());
    SmallVector<Value> pieces;
    int64_t offset = 0;
    for (auto [size, result] : llvm::zip(op.getSplitSizes(), op.getResults())) {
      SliceBounds s = sliceAlong(rewriter, inputType, dim, offset, size);
      Value piece = rewriter.create<tensor::ExtractSliceOp>(
          op.getLoc(), rankedType(result), op.getInput(), s.offsets, s.sizes,
          s.strides);
      pieces.push_back(materializeIfStrided(rewriter, op.getLoc(), piece,
                                            inputType, dim, 1));
      offset += size;
    }
    rewriter.replaceOp(op, pieces);
    return success();
  }
};

/// The value every element of `input` holds when it is a splat constant.
std::optional<TypedAttr> splatValue(Value input) {
  DenseElementsAttr dense;
  if (!matchPattern(input, m_Constant(&dense)) || !dense.isSplat())
    return std::nullopt;
  return dense.getSplatValue<TypedAttr>();
}

/// cat and stack: each input copied into its slice of an empty result; stack
/// uses rank-reduced slices (size 1 along the new dimension). Where an input
/// is a splat constant (a padding's zeros), the result is filled with that
/// value first, in one pass over contiguous memory, and the inputs of that
/// value are not copied: copied, a [N, C, 1, W] border of an [N, C, H, W]
/// result was N x C strided row fills, which LLVM unrolled into thousands
/// of memset calls per block (a ResidualBlock training step spent 17 s in
/// the instruction scheduler).
template <typename OpTy, bool newDim>
struct JoinLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = rankedType(op.getResult());
    if (resultType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "cannot join scalars");
    int64_t dim = normalize(op.getDim(), resultType.getRank());
    Value result = rewriter.create<tensor::EmptyOp>(
        op.getLoc(), resultType.getShape(), resultType.getElementType());
    std::optional<TypedAttr> fill;
    for (Value input : op.getInputs())
      if ((fill = splatValue(input)))
        break;
    if (fill) {
      Value value = rewriter.create<arith::ConstantOp>(op.getLoc(), *fill);
      result = rewriter.create<linalg::FillOp>(op.getLoc(), value, result)
                   .getResult(0);
    }
    int64_t offset = 0;
    for (Value input : op.getInputs()) {
      auto inputType = rankedType(input);
      int64_t size = newDim ? 1 : inputType.getDimSize(dim);
      if (fill && splatValue(input) == fill) {
        offset += size;
        continue;
      }
      SliceBounds s = sliceAlong(rewriter, resultType, dim, offset, size);
      // Destination-passing style: copy into the slice of the result, then
      // insert it back, so bufferization writes in place (an insert_slice
      // of a plain tensor would be a memref.copy into a strided view, which
      // lowers to a runtime-library call).
      Value slot = rewriter.create<tensor::ExtractSliceOp>(
          op.getLoc(), inputType, result, s.offsets, s.sizes, s.strides);
      Value copied = rewriter.create<linalg::CopyOp>(op.getLoc(), input, slot)
                         .getResult(0);
      result = rewriter.create<tensor::InsertSliceOp>(
          op.getLoc(), copied, result, s.offsets, s.sizes, s.strides);
      offset += size;
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// nn.pad: the result filled with the value in one pass over contiguous
/// memory (JoinLowering says why not only the borders), the input copied
/// into its interior, in destination-passing style as there.
struct PadLowering : public OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = rankedType(op.getResult());
    auto inputType = rankedType(op.getInput());
    Type element = resultType.getElementType();
    Value result =
        rewriter.create<tensor::EmptyOp>(loc, resultType.getShape(), element);
    Value value =
        buildScalar(rewriter, loc, element, op.getValue().convertToDouble());
    result = rewriter.create<linalg::FillOp>(loc, value, result).getResult(0);
    SmallVector<OpFoldResult> offsets, sizes,
        strides(inputType.getRank(), rewriter.getIndexAttr(1));
    for (auto [low, size] : llvm::zip(op.getLow(), inputType.getShape())) {
      offsets.push_back(rewriter.getIndexAttr(low));
      sizes.push_back(rewriter.getIndexAttr(size));
    }
    Value slot = rewriter.create<tensor::ExtractSliceOp>(
        loc, inputType, result, offsets, sizes, strides);
    Value copied =
        rewriter.create<linalg::CopyOp>(loc, op.getInput(), slot).getResult(0);
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(op, copied, result,
                                                       offsets, sizes, strides);
    return success();
  }
};

/// The loop index `d` of the linalg.generic being built (linalg.index).
using LoopIndex = function_ref<Value(int64_t d)>;

/// A linalg.generic over `resultType` reading `indices` with `indexMap` and
/// yielding source[coordinates(loop, index)]: `index` is the index read
/// (cast to `index`), `loop(d)` the loop index d (only the ones asked for
/// are materialized).
Value buildGather(
    OpBuilder &b, Location loc, RankedTensorType resultType, Value source,
    Value indices, AffineMap indexMap,
    function_ref<SmallVector<Value>(LoopIndex loop, Value index)> coordinates) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps = {indexMap, b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value init = b.create<tensor::EmptyOp>(loc, resultType.getShape(),
                                         resultType.getElementType());
  auto generic = b.create<linalg::GenericOp>(
      loc, resultType, indices, init, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value index = nested.create<arith::IndexCastOp>(
            nestedLoc, nested.getIndexType(), args[0]);
        auto loop = [&](int64_t d) -> Value {
          return nested.create<linalg::IndexOp>(nestedLoc, d);
        };
        Value element = nested.create<tensor::ExtractOp>(
            nestedLoc, source, coordinates(loop, index));
        nested.create<linalg::YieldOp>(nestedLoc, element);
      });
  return generic.getResult(0);
}

/// buildGather's coordinates for index_select and gather: the index read in
/// dimension `dim`, the loop index in every other.
auto indexInDim(int64_t rank, int64_t dim) {
  return [rank, dim](LoopIndex loop, Value index) {
    SmallVector<Value> at;
    for (int64_t d = 0; d < rank; ++d)
      at.push_back(d == dim ? index : loop(d));
    return at;
  };
}

struct IndexSelectOpLowering : public OpRewritePattern<IndexSelectOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(IndexSelectOp op,
                                PatternRewriter &rewriter) const override {
    auto inputType = rankedType(op.getInput());
    auto indexType = rankedType(op.getIndex());
    auto resultType = rankedType(op.getResult());
    if (indexType.getRank() > 1)
      return rewriter.notifyMatchFailure(op, "index must be 1-D or a scalar");
    int64_t rank = resultType.getRank();
    int64_t dim = normalize(op.getDim(), inputType.getRank());
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> indexExprs;
    if (indexType.getRank() == 1)
      indexExprs.push_back(rank == 0 ? getAffineConstantExpr(0, ctx)
                                     : getAffineDimExpr(dim, ctx));
    AffineMap indexMap = AffineMap::get(rank, 0, indexExprs, ctx);
    Value result = buildGather(rewriter, op.getLoc(), resultType, op.getInput(),
                               op.getIndex(), indexMap, indexInDim(rank, dim));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GatherOpLowering : public OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    auto inputType = rankedType(op.getInput());
    auto resultType = rankedType(op.getResult());
    if (rankedType(op.getIndex()).getRank() != inputType.getRank())
      return rewriter.notifyMatchFailure(op, "index and input ranks differ");
    int64_t rank = resultType.getRank();
    int64_t dim = normalize(op.getDim(), inputType.getRank());
    Value result = buildGather(
        rewriter, op.getLoc(), resultType, op.getInput(), op.getIndex(),
        rewriter.getMultiDimIdentityMap(rank), indexInDim(rank, dim));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct EmbeddingOpLowering : public OpRewritePattern<EmbeddingOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(EmbeddingOp op,
                                PatternRewriter &rewriter) const override {
    auto weightType = rankedType(op.getWeight());
    auto resultType = rankedType(op.getResult());
    if (weightType.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "weight must be 2-D");
    int64_t rank = resultType.getRank();
    // The indices are read at every loop index but the last (the column).
    AffineMap indexMap =
        AffineMap::getMultiDimIdentityMap(rank - 1, rewriter.getContext());
    indexMap =
        AffineMap::get(rank, 0, indexMap.getResults(), rewriter.getContext());
    Value result = buildGather(
        rewriter, op.getLoc(), resultType, op.getWeight(), op.getIndices(),
        indexMap, [&](LoopIndex loop, Value index) {
          return SmallVector<Value>{index, loop(rank - 1)};
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::nn::populateShapePatterns(RewritePatternSet &patterns) {
  patterns
      .add<ReshapeLikeLowering<ReshapeOp>, ReshapeLikeLowering<FlattenOp>,
           ReshapeLikeLowering<SqueezeOp>, ReshapeLikeLowering<UnsqueezeOp>,
           PermutationLowering<PermuteOp>, PermutationLowering<TransposeOp>,
           ExpandOpLowering, SliceOpLowering, SplitOpLowering,
           JoinLowering<CatOp, false>, JoinLowering<StackOp, true>, PadLowering,
           IndexSelectOpLowering, GatherOpLowering, EmbeddingOpLowering>(
          patterns.getContext());
}
