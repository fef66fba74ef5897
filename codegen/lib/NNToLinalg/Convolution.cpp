//===- Convolution.cpp - nn convolution, pooling and resampling to linalg
//---===//
//
// Lowerings of the ops in NNConvolutionOps.td.
//
// * nn.conv: zero padding (see insertIntoFilled for why not tensor.pad),
//   the bias broadcast as the accumulator init, then
//   linalg.conv_{1d_ncw_fcw,2d_nchw_fchw,3d_ncdhw_fcdhw} (groups 1),
//   linalg.depthwise_conv_{1d_ncw_cw,2d_nchw_chw,3d_ncdhw_cdhw} (groups ==
//   in == out channels) or, for other groups, linalg.conv_2d_ngchw_gfchw on
//   [N, G, C/G, ...] views (1-D lifted to 2-D with a unit height; 3-D, which
//   has no named op, one linalg.generic on the same views). f16/bf16
//   convolutions accumulate in f32 (the named ops widen their inputs to the
//   f32 init) and round the result once to the storage type.
// * nn.conv_transpose: a stride-1 nn.conv (lowered in turn) over the input
//   zero-interleaved by the stride (a strided linalg.copy into a subview of
//   zeros) and padded by dilation * (k - 1) - padding on each side (negative
//   amounts crop), with the kernel flipped spatially and its in/out channels
//   swapped per group (one linalg.generic whose input map does both).
// * nn.max_pool: -inf padding (extra high padding for ceil_mode) and one
//   linalg.generic over the windows (linalg.pooling_nchw_max for any
//   number of spatial dimensions; linalg has no NCDHW pooling).
// * nn.avg_pool: zero padding, the same generic summing, then a divide by a
//   per-cell divisor constant computed at compile time with PyTorch's rules
//   (count_include_pad, ceil_mode clipping, divisor_override).
// * nn.adaptive_avg_pool: one linalg.generic reducing over the largest
//   window, with each cell's window bounds computed from linalg.index and
//   cells outside the window masked, then the per-cell divisor constant.
// * nn.interpolate: one linalg.generic computing source coordinates from
//   linalg.index in f32 exactly as PyTorch's CPU kernels do and reading the
//   input with tensor.extract.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::nn;

namespace {

Value floatConstant(OpBuilder &b, Location loc, Type type, double value) {
  return b.create<arith::ConstantOp>(loc, type, b.getFloatAttr(type, value));
}

/// A tensor of `shape` filled with `value`, with `source` written into it at
/// `offsets` (spatial dimensions only; N and C start at 0) every `strides`
/// elements. Built in destination-passing style (fill, extract_slice,
/// linalg.copy, insert_slice) so that one-shot bufferization writes `source`
/// straight into a subview of the filled buffer. tensor.pad and a plain
/// tensor.insert_slice would bufferize to memref.copy into a strided subview,
/// which finalize-memref-to-llvm turns into a call to the `memrefCopy`
/// runtime function that compiled models do not link.
Value insertIntoFilled(OpBuilder &b, Location loc, Value source,
                       ArrayRef<int64_t> shape, Value value,
                       ArrayRef<int64_t> offsets, ArrayRef<int64_t> strides) {
  auto type = llvm::cast<RankedTensorType>(source.getType());
  Value empty = b.create<tensor::EmptyOp>(loc, shape, type.getElementType());
  Value filled = b.create<linalg::FillOp>(loc, value, empty).getResult(0);
  SmallVector<OpFoldResult> offs = {b.getIndexAttr(0), b.getIndexAttr(0)},
                            sizes,
                            steps = {b.getIndexAttr(1), b.getIndexAttr(1)};
  for (int64_t d : type.getShape())
    sizes.push_back(b.getIndexAttr(d));
  for (size_t i = 0; i < offsets.size(); ++i) {
    offs.push_back(b.getIndexAttr(offsets[i]));
    steps.push_back(b.getIndexAttr(strides[i]));
  }
  Value slice =
      b.create<tensor::ExtractSliceOp>(loc, type, filled, offs, sizes, steps);
  Value copied = b.create<linalg::CopyOp>(loc, source, slice).getResult(0);
  return b.create<tensor::InsertSliceOp>(loc, copied, filled, offs, sizes,
                                         steps);
}

/// `input` ([N, C, spatial...]) padded on the spatial dimensions with
/// `value`; `input` itself when no padding is needed. (What tensor.pad
/// means, spelled as insertIntoFilled for the reason given there.)
Value padSpatial(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> lo,
                 ArrayRef<int64_t> hi, Value value) {
  if (llvm::all_of(lo, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(hi, [](int64_t v) { return v == 0; }))
    return input;
  auto type = llvm::cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (size_t i = 0; i < lo.size(); ++i)
    shape[2 + i] += lo[i] + hi[i];
  SmallVector<int64_t> ones(lo.size(), 1);
  return insertIntoFilled(b, loc, input, shape, value, lo, ones);
}

/// The [N, O, spatial...] accumulator: `bias` ([O]) broadcast, or zeros, of
/// `resultType` (whose element type may be wider than the bias's).
Value biasOrZeros(OpBuilder &b, Location loc, RankedTensorType resultType,
                  Value bias) {
  if (!bias)
    return buildZeroFilled(b, loc, resultType);
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, getAffineDimExpr(1, ctx), ctx),
      b.getMultiDimIdentityMap(rank)};
  Value init = b.create<tensor::EmptyOp>(loc, resultType.getShape(),
                                         resultType.getElementType());
  return b
      .create<linalg::GenericOp>(
          loc, resultType, bias, init, maps,
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            nb.create<linalg::YieldOp>(
                nl, convertFloat(nb, nl, args[0], resultType.getElementType()));
          })
      .getResult(0);
}

/// `value` reshaped to `shape` by splitting or merging dimensions as
/// `groups` says (expand when the rank grows, collapse when it shrinks).
Value reshape(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> shape,
              ArrayRef<ReassociationIndices> groups) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  auto target = RankedTensorType::get(shape, type.getElementType());
  if (target.getRank() > type.getRank())
    return b.create<tensor::ExpandShapeOp>(loc, target, value, groups);
  return b.create<tensor::CollapseShapeOp>(loc, target, value, groups);
}

//===----------------------------------------------------------------------===//
// nn.conv
//===----------------------------------------------------------------------===//

/// The named linalg convolution of `rank` spatial dimensions (Op3D, Op2D or
/// Op1D) of `input` and `weight`, accumulated onto `init`.
template <typename Op3D, typename Op2D, typename Op1D>
Value namedConv(OpBuilder &b, Location loc, int64_t rank,
                RankedTensorType resultType, Value input, Value weight,
                Value init, ArrayRef<int64_t> stride,
                ArrayRef<int64_t> dilation) {
  auto strides = b.getI64TensorAttr(stride);
  auto dilations = b.getI64TensorAttr(dilation);
  SmallVector<Value, 2> operands = {input, weight};
  if (rank == 3)
    return b.create<Op3D>(loc, resultType, operands, init, strides, dilations)
        .getResult(0);
  if (rank == 2)
    return b.create<Op2D>(loc, resultType, operands, init, strides, dilations)
        .getResult(0);
  return b.create<Op1D>(loc, resultType, operands, init, strides, dilations)
      .getResult(0);
}

/// A grouped convolution of any spatial rank as one linalg.generic (linalg
/// has no named grouped convolution beyond 2-D): `input` [N, G, C/G, s...],
/// `weight` [G, F, C/G, k...] accumulated onto `init` [N, G, F, o...], the
/// products computed in `init`'s element type. Iterates (n, g, f, o..., c,
/// k...).
Value genericGroupedConv(OpBuilder &b, Location loc, Value input, Value weight,
                         Value init, ArrayRef<int64_t> stride,
                         ArrayRef<int64_t> dilation) {
  MLIRContext *ctx = b.getContext();
  auto initType = llvm::cast<RankedTensorType>(init.getType());
  int64_t rank = static_cast<int64_t>(stride.size());
  int64_t loops = 4 + 2 * rank;
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  AffineExpr n = dim(0), g = dim(1), f = dim(2), c = dim(3 + rank);
  SmallVector<AffineExpr> in = {n, g, c}, w = {g, f, c}, out = {n, g, f};
  for (int64_t i = 0; i < rank; ++i) {
    AffineExpr o = dim(3 + i), k = dim(4 + rank + i);
    in.push_back(o * stride[i] + k * dilation[i]);
    w.push_back(k);
    out.push_back(o);
  }
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, in, ctx),
                                 AffineMap::get(loops, 0, w, ctx),
                                 AffineMap::get(loops, 0, out, ctx)};
  SmallVector<utils::IteratorType> iterators(3 + rank,
                                             utils::IteratorType::parallel);
  iterators.append(1 + rank, utils::IteratorType::reduction);
  Type acc = initType.getElementType();
  return b
      .create<linalg::GenericOp>(
          loc, initType, ValueRange{input, weight}, init, maps, iterators,
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            Value product =
                nb.create<arith::MulFOp>(nl, convertFloat(nb, nl, args[0], acc),
                                         convertFloat(nb, nl, args[1], acc));
            nb.create<linalg::YieldOp>(
                nl, nb.create<arith::AddFOp>(nl, args[2], product).getResult());
          })
      .getResult(0);
}

struct ConvOpLowering : public OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = llvm::dyn_cast<RankedTensorType>(op.getType());
    auto inputType = llvm::dyn_cast<RankedTensorType>(op.getInput().getType());
    auto weightType =
        llvm::dyn_cast<RankedTensorType>(op.getWeight().getType());
    if (!resultType || !inputType || !weightType ||
        !resultType.hasStaticShape() || !inputType.hasStaticShape() ||
        !weightType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t rank = op.getSpatialRank();
    if (rank < 1 || rank > 3)
      return rewriter.notifyMatchFailure(op, "only 1-D to 3-D convolution");
    int64_t groups = op.getGroups();
    int64_t channels = inputType.getDimSize(1);
    int64_t out = weightType.getDimSize(0);
    if (groups < 1 || channels % groups || out % groups)
      return rewriter.notifyMatchFailure(op, "groups do not divide channels");

    Type storage = resultType.getElementType();
    Value zero = floatConstant(rewriter, loc, storage, 0.0);
    Value input =
        padSpatial(rewriter, loc, op.getInput(), padLow(op.getPadding(), rank),
                   padHigh(op.getPadding(), rank), zero);
    // The convolution runs on the accumulator type; rounded at the end.
    Type elementType = computeType(storage);
    resultType = resultType.clone(elementType);
    Value init = biasOrZeros(rewriter, loc, resultType, op.getBias());
    Value weight = op.getWeight();
    SmallVector<int64_t> stride(op.getStride()), dilation(op.getDilation());

    Value result;
    if (groups == 1) {
      result = namedConv<linalg::Conv3DNcdhwFcdhwOp, linalg::Conv2DNchwFchwOp,
                         linalg::Conv1DNcwFcwOp>(rewriter, loc, rank,
                                                 resultType, input, weight,
                                                 init, stride, dilation);
    } else if (groups == channels && out == channels) {
      // Depthwise: drop the unit in-channels-per-group dimension of the
      // weight ([C, 1, k...] -> [C, k...]).
      SmallVector<int64_t> shape = {channels};
      for (int64_t i = 0; i < rank; ++i)
        shape.push_back(weightType.getDimSize(2 + i));
      SmallVector<ReassociationIndices> merge = {{0, 1}};
      for (int64_t i = 0; i < rank; ++i)
        merge.push_back({2 + i});
      weight = reshape(rewriter, loc, weight, shape, merge);
      result = namedConv<linalg::DepthwiseConv3DNcdhwCdhwOp,
                         linalg::DepthwiseConv2DNchwChwOp,
                         linalg::DepthwiseConv1DNcwCwOp>(
          rewriter, loc, rank, resultType, input, weight, init, stride,
          dilation);
    } else {
      // Grouped: [N, G, C/G, ...] views; 1-D is lifted to 2-D with a unit
      // height first.
      auto inType = llvm::cast<RankedTensorType>(input.getType());
      SmallVector<int64_t> inShape(inType.getShape()),
          wShape(weightType.getShape()), outShape(resultType.getShape());
      if (rank == 1) {
        SmallVector<ReassociationIndices> lift = {{0}, {1}, {2, 3}};
        auto lifted = [](ArrayRef<int64_t> s) {
          return SmallVector<int64_t>{s[0], s[1], 1, s[2]};
        };
        inShape = lifted(inShape);
        wShape = lifted(wShape);
        outShape = lifted(outShape);
        input = reshape(rewriter, loc, input, inShape, lift);
        weight = reshape(rewriter, loc, weight, wShape, lift);
        init = reshape(rewriter, loc, init, outShape, lift);
        stride.insert(stride.begin(), 1);
        dilation.insert(dilation.begin(), 1);
      }
      // [N, G, channels / G, spatial...] of [N, channels, spatial...].
      auto grouped = [&](ArrayRef<int64_t> s, int64_t perGroup) {
        SmallVector<int64_t> shape = {s[0], groups, perGroup};
        llvm::append_range(shape, s.drop_front(2));
        return shape;
      };
      SmallVector<ReassociationIndices> split = {{0}, {1, 2}},
                                        splitW = {{0, 1}, {2}};
      for (size_t d = 2; d < inShape.size(); ++d) {
        split.push_back({static_cast<int64_t>(d) + 1});
        splitW.push_back({static_cast<int64_t>(d) + 1});
      }
      SmallVector<int64_t> groupedOut = grouped(outShape, out / groups);
      SmallVector<int64_t> groupedW = {groups, out / groups};
      llvm::append_range(groupedW, ArrayRef<int64_t>(wShape).drop_front());
      // (Built one by one: argument evaluation order is unspecified.)
      Value groupedInput = reshape(rewriter, loc, input,
                                   grouped(inShape, channels / groups), split);
      Value groupedWeight = reshape(rewriter, loc, weight, groupedW, splitW);
      Value groupedInit = reshape(rewriter, loc, init, groupedOut, split);
      // linalg has a named grouped convolution in 2-D only; 3-D is one
      // linalg.generic on the same views.
      Value conv =
          stride.size() == 2
              ? rewriter
                    .create<linalg::Conv2DNgchwGfchwOp>(
                        loc, RankedTensorType::get(groupedOut, elementType),
                        ValueRange{groupedInput, groupedWeight}, groupedInit,
                        rewriter.getI64TensorAttr(stride),
                        rewriter.getI64TensorAttr(dilation))
                    .getResult(0)
              : genericGroupedConv(rewriter, loc, groupedInput, groupedWeight,
                                   groupedInit, stride, dilation);
      result = reshape(rewriter, loc, conv, outShape, split);
      if (rank == 1)
        result = reshape(rewriter, loc, result, resultType.getShape(),
                         {{0}, {1}, {2, 3}});
    }
    rewriter.replaceOp(op, convertElements(rewriter, loc, result, storage));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// nn.conv_transpose
//===----------------------------------------------------------------------===//

struct ConvTransposeOpLowering : public OpRewritePattern<ConvTransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvTransposeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inputType = llvm::dyn_cast<RankedTensorType>(op.getInput().getType());
    auto weightType =
        llvm::dyn_cast<RankedTensorType>(op.getWeight().getType());
    if (!inputType || !weightType || !inputType.hasStaticShape() ||
        !weightType.hasStaticShape() || inputType.getRank() < 3 ||
        inputType.getRank() > 5 || weightType.getRank() != inputType.getRank())
      return rewriter.notifyMatchFailure(op,
                                         "needs static 3-D to 5-D operands");
    int64_t rank = inputType.getRank() - 2;
    int64_t groups = op.getGroups();
    int64_t channels = inputType.getDimSize(1);
    if (groups < 1 || channels % groups || weightType.getDimSize(0) != channels)
      return rewriter.notifyMatchFailure(op, "groups do not divide channels");
    Type elementType = inputType.getElementType();
    MLIRContext *ctx = rewriter.getContext();

    // 1. Interleave with stride - 1 zeros and pad (or crop) by
    //    dilation * (k - 1) - padding, output_padding more on the high side.
    SmallVector<int64_t> lo = padLow(op.getPadding(), rank),
                         hi = padHigh(op.getPadding(), rank);
    SmallVector<int64_t> padLo(rank), padHi(rank), spread(rank), full(rank);
    SmallVector<int64_t> canvas = {inputType.getDimSize(0), channels}, at;
    bool crops = false;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t k = weightType.getDimSize(2 + i);
      int64_t d = op.getDilation()[i], s = op.getStride()[i];
      padLo[i] = d * (k - 1) - lo[i];
      padHi[i] = d * (k - 1) - hi[i] + op.getOutputPadding()[i];
      spread[i] = (inputType.getDimSize(2 + i) - 1) * s + 1;
      full[i] = spread[i] + padLo[i] + padHi[i];
      canvas.push_back(spread[i] + std::max<int64_t>(padLo[i], 0) +
                       std::max<int64_t>(padHi[i], 0));
      at.push_back(std::max<int64_t>(padLo[i], 0));
      crops |= padLo[i] < 0 || padHi[i] < 0;
    }
    Value zero = floatConstant(rewriter, loc, elementType, 0.0);
    SmallVector<int64_t> stride(op.getStride());
    Value input = insertIntoFilled(rewriter, loc, op.getInput(), canvas, zero,
                                   at, stride);
    if (crops) {
      SmallVector<OpFoldResult> cropOffsets = {rewriter.getIndexAttr(0),
                                               rewriter.getIndexAttr(0)},
                                cropSizes = {rewriter.getIndexAttr(canvas[0]),
                                             rewriter.getIndexAttr(canvas[1])},
                                ones(rank + 2, rewriter.getIndexAttr(1));
      SmallVector<int64_t> cropShape = {canvas[0], canvas[1]};
      for (int64_t i = 0; i < rank; ++i) {
        cropOffsets.push_back(
            rewriter.getIndexAttr(std::max<int64_t>(-padLo[i], 0)));
        cropSizes.push_back(rewriter.getIndexAttr(full[i]));
        cropShape.push_back(full[i]);
      }
      input = rewriter.create<tensor::ExtractSliceOp>(
          loc, RankedTensorType::get(cropShape, elementType), input,
          cropOffsets, cropSizes, ones);
    }

    // 2. The kernel as a convolution's: [O, C/G, k...] with
    //    w'[o, c, i...] = w[(o / (O/G)) * (C/G) + c, o mod (O/G), k-1-i...].
    int64_t outPerGroup = weightType.getDimSize(1);
    int64_t inPerGroup = channels / groups;
    SmallVector<int64_t> convWeightShape = {outPerGroup * groups, inPerGroup};
    AffineExpr o = getAffineDimExpr(0, ctx), c = getAffineDimExpr(1, ctx);
    SmallVector<AffineExpr> source = {o.floorDiv(outPerGroup) * inPerGroup + c,
                                      o % outPerGroup};
    for (int64_t i = 0; i < rank; ++i) {
      int64_t k = weightType.getDimSize(2 + i);
      convWeightShape.push_back(k);
      source.push_back(k - 1 - getAffineDimExpr(2 + i, ctx));
    }
    SmallVector<AffineMap> maps = {AffineMap::get(rank + 2, 0, source, ctx),
                                   rewriter.getMultiDimIdentityMap(rank + 2)};
    Value empty =
        rewriter.create<tensor::EmptyOp>(loc, convWeightShape, elementType);
    Value weight = rewriter
                       .create<linalg::GenericOp>(
                           loc, empty.getType(), op.getWeight(), empty, maps,
                           SmallVector<utils::IteratorType>(
                               rank + 2, utils::IteratorType::parallel),
                           [](OpBuilder &nb, Location nl, ValueRange args) {
                             nb.create<linalg::YieldOp>(nl, args[0]);
                           })
                       .getResult(0);

    // 3. A stride-1 convolution, lowered by ConvOpLowering.
    SmallVector<int64_t> zeroPad(rank, 0), unitStride(rank, 1);
    Value result =
        rewriter.create<ConvOp>(loc, op.getType(), input, weight, op.getBias(),
                                rewriter.getDenseI64ArrayAttr(unitStride),
                                rewriter.getDenseI64ArrayAttr(zeroPad),
                                op.getDilationAttr(), op.getGroupsAttr());
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// Checks a pooling op's operand and result are static tensors.
LogicalResult checkPoolShapes(Operation *op, PatternRewriter &rewriter) {
  auto in = llvm::dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto res = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!in || !res || !in.hasStaticShape() || !res.hasStaticShape())
    return rewriter.notifyMatchFailure(op, "needs static tensors");
  return success();
}

/// Checks an op on 2-D images has static 4-D tensors.
LogicalResult checkImageShapes(Operation *op, PatternRewriter &rewriter) {
  if (failed(checkPoolShapes(op, rewriter)))
    return failure();
  if (llvm::cast<RankedTensorType>(op->getOperand(0).getType()).getRank() != 4)
    return rewriter.notifyMatchFailure(op, "needs 4-D tensors");
  return success();
}

/// High padding that makes every output window of a (ceil-mode) pooling fit
/// inside the padded input.
int64_t poolHighPad(int64_t in, int64_t out, int64_t kernel, int64_t stride,
                    int64_t dilation, int64_t padLo, int64_t padHi) {
  int64_t needed = (out - 1) * stride + dilation * (kernel - 1) + 1;
  return std::max<int64_t>(padHi, needed - in - padLo);
}

/// `sum` ([N, C, spatial...]) divided elementwise by `divisors` (one value
/// per spatial cell, row-major), broadcast over N and C; the divisors become
/// a constant.
Value divideByCells(OpBuilder &b, Location loc, Value sum,
                    ArrayRef<double> divisors) {
  auto type = llvm::cast<RankedTensorType>(sum.getType());
  Type elementType = type.getElementType();
  auto cellsType =
      RankedTensorType::get(type.getShape().drop_front(2), elementType);
  SmallVector<Attribute> values;
  for (double d : divisors)
    values.push_back(b.getFloatAttr(elementType, d));
  Value cells = b.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(cellsType, values));
  return buildBroadcastingElementwise(
      b, loc, type, ValueRange{sum, cells},
      [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        return nb.create<arith::DivFOp>(nl, args[0], args[1]);
      });
}

/// linalg.pooling_nc{w,hw}_{max,sum} for any number of spatial dimensions:
/// one linalg.generic combining into `init` ([N, C, out...]) the cells of
/// the (already padded) `input` at `out * stride + k * dilation` for every
/// window offset `k` (a `kernel`-shaped reduction).
Value buildWindowReduction(
    OpBuilder &b, Location loc, Value input, Value init,
    ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
    ArrayRef<int64_t> dilation,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  MLIRContext *ctx = b.getContext();
  auto initType = llvm::cast<RankedTensorType>(init.getType());
  int64_t rank = static_cast<int64_t>(kernel.size()), loops = 2 + 2 * rank;
  SmallVector<AffineExpr> inputExprs = {getAffineDimExpr(0, ctx),
                                        getAffineDimExpr(1, ctx)},
                          windowExprs;
  for (int64_t i = 0; i < rank; ++i) {
    AffineExpr k = getAffineDimExpr(2 + rank + i, ctx);
    inputExprs.push_back(getAffineDimExpr(2 + i, ctx) * stride[i] +
                         k * dilation[i]);
    windowExprs.push_back(k);
  }
  SmallVector<AffineMap> maps = {
      AffineMap::get(loops, 0, inputExprs, ctx),
      AffineMap::get(loops, 0, windowExprs, ctx),
      AffineMap::getMultiDimIdentityMap(loops, ctx).getMajorSubMap(2 + rank)};
  SmallVector<utils::IteratorType> iterators(2 + rank,
                                             utils::IteratorType::parallel);
  iterators.append(rank, utils::IteratorType::reduction);
  Value window =
      b.create<tensor::EmptyOp>(loc, kernel, initType.getElementType());
  return b
      .create<linalg::GenericOp>(
          loc, initType, ValueRange{input, window}, init, maps, iterators,
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            nb.create<linalg::YieldOp>(nl, combine(nb, nl, args[2], args[0]));
          })
      .getResult(0);
}

struct MaxPoolOpLowering : public OpRewritePattern<MaxPoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaxPoolOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkPoolShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    auto inType = llvm::cast<RankedTensorType>(op.getInput().getType());
    auto resultType = llvm::cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    int64_t rank = op.getSpatialRank();
    SmallVector<int64_t> lo(op.getPadding()), hi(rank);
    for (int64_t i = 0; i < rank; ++i)
      hi[i] = poolHighPad(inType.getDimSize(2 + i),
                          resultType.getDimSize(2 + i), op.getKernel()[i],
                          op.getStride()[i], op.getDilation()[i], lo[i], lo[i]);
    Value negInf = floatConstant(rewriter, loc, elementType,
                                 -std::numeric_limits<double>::infinity());
    Value input = padSpatial(rewriter, loc, op.getInput(), lo, hi, negInf);
    Value init = rewriter.create<tensor::EmptyOp>(loc, resultType.getShape(),
                                                  elementType);
    init = rewriter.create<linalg::FillOp>(loc, negInf, init).getResult(0);
    // arith.maximumf propagates NaN, as PyTorch's max pooling does.
    rewriter.replaceOp(
        op, buildWindowReduction(
                rewriter, loc, input, init, op.getKernel(), op.getStride(),
                op.getDilation(),
                [](OpBuilder &b, Location l, Value acc, Value v) -> Value {
                  return b.create<arith::MaximumFOp>(l, acc, v);
                }));
    return success();
  }
};

struct AvgPoolOpLowering : public OpRewritePattern<AvgPoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AvgPoolOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkPoolShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    auto inType = llvm::cast<RankedTensorType>(op.getInput().getType());
    auto resultType = llvm::cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    ArrayRef<int64_t> kernel = op.getKernel(), stride = op.getStride(),
                      pad = op.getPadding();
    int64_t rank = op.getSpatialRank();
    SmallVector<int64_t> hi(rank), ones(rank, 1);
    for (int64_t i = 0; i < rank; ++i)
      hi[i] =
          poolHighPad(inType.getDimSize(2 + i), resultType.getDimSize(2 + i),
                      kernel[i], stride[i], 1, pad[i], pad[i]);
    Value zero = floatConstant(rewriter, loc, elementType, 0.0);
    Value input = padSpatial(rewriter, loc, op.getInput(), pad, hi, zero);
    Value sum = buildWindowReduction(
        rewriter, loc, input, buildZeroFilled(rewriter, loc, resultType),
        kernel, stride, ones,
        [](OpBuilder &b, Location l, Value acc, Value v) -> Value {
          return b.create<arith::AddFOp>(l, acc, v);
        });

    rewriter.replaceOp(op,
                       divideByCells(rewriter, loc, sum, avgPoolDivisors(op)));
    return success();
  }
};

struct AdaptiveAvgPoolOpLowering : public OpRewritePattern<AdaptiveAvgPoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AdaptiveAvgPoolOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkPoolShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    auto inType = llvm::cast<RankedTensorType>(op.getInput().getType());
    auto resultType = llvm::cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    int64_t rank = op.getSpatialRank();
    ArrayRef<int64_t> in = inType.getShape().drop_front(2),
                      out = resultType.getShape().drop_front(2);
    // The largest window in each dimension: the reduction extent; and each
    // cell's divisor, the product of its windows' sizes.
    SmallVector<int64_t> window(rank, 0);
    SmallVector<double> divisors = {1.0};
    for (int64_t d = 0; d < rank; ++d) {
      SmallVector<double> next;
      for (double cells : divisors)
        for (int64_t i = 0; i < out[d]; ++i) {
          auto [start, end] = adaptivePoolWindow(i, in[d], out[d]);
          window[d] = std::max(window[d], end - start);
          next.push_back(cells * static_cast<double>(end - start));
        }
      divisors = std::move(next);
    }

    MLIRContext *ctx = rewriter.getContext();
    int64_t loops = 2 + 2 * rank;
    SmallVector<AffineExpr> windowExprs;
    for (int64_t d = 0; d < rank; ++d)
      windowExprs.push_back(getAffineDimExpr(2 + rank + d, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(loops, 0, windowExprs, ctx),
        AffineMap::getMultiDimIdentityMap(loops, ctx).getMajorSubMap(2 + rank)};
    SmallVector<utils::IteratorType> iterators(2 + rank,
                                               utils::IteratorType::parallel);
    iterators.append(rank, utils::IteratorType::reduction);
    Value windowTensor =
        rewriter.create<tensor::EmptyOp>(loc, window, elementType);
    Value init = buildZeroFilled(rewriter, loc, resultType);
    Value input = op.getInput();
    Value sum =
        rewriter
            .create<linalg::GenericOp>(
                loc, resultType, windowTensor, init, maps, iterators,
                [&](OpBuilder &b, Location l, ValueRange args) {
                  auto cst = [&](int64_t v) {
                    return b.create<arith::ConstantIndexOp>(l, v).getResult();
                  };
                  SmallVector<Value> indices = {
                      b.create<linalg::IndexOp>(l, 0),
                      b.create<linalg::IndexOp>(l, 1)};
                  Value valid;
                  for (int64_t d = 0; d < rank; ++d) {
                    Value o = b.create<linalg::IndexOp>(l, 2 + d);
                    Value k = b.create<linalg::IndexOp>(l, 2 + rank + d);
                    // start = o * in / out, end = ceil((o + 1) * in / out)
                    Value lo = b.create<arith::DivUIOp>(
                        l, b.create<arith::MulIOp>(l, o, cst(in[d])),
                        cst(out[d]));
                    Value hiNum = b.create<arith::AddIOp>(
                        l,
                        b.create<arith::MulIOp>(
                            l, b.create<arith::AddIOp>(l, o, cst(1)),
                            cst(in[d])),
                        cst(out[d] - 1));
                    Value hi = b.create<arith::DivUIOp>(l, hiNum, cst(out[d]));
                    Value pos = b.create<arith::AddIOp>(l, lo, k);
                    Value inside = b.create<arith::CmpIOp>(
                        l, arith::CmpIPredicate::ult, pos, hi);
                    valid = valid ? b.create<arith::AndIOp>(l, valid, inside)
                                        .getResult()
                                  : inside;
                    // Clamped so the read stays in bounds when masked.
                    indices.push_back(
                        b.create<arith::MinUIOp>(l, pos, cst(in[d] - 1)));
                  }
                  Value v = b.create<tensor::ExtractOp>(l, input, indices);
                  Value zero = floatConstant(b, l, elementType, 0.0);
                  Value term = b.create<arith::SelectOp>(l, valid, v, zero);
                  b.create<linalg::YieldOp>(
                      l, b.create<arith::AddFOp>(l, args[1], term).getResult());
                })
            .getResult(0);
    rewriter.replaceOp(op, divideByCells(rewriter, loc, sum, divisors));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// nn.interpolate
//===----------------------------------------------------------------------===//

struct InterpolateOpLowering : public OpRewritePattern<InterpolateOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(InterpolateOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkImageShapes(op, rewriter)))
      return failure();
    bool bilinear = op.getMode() == "bilinear";
    if (!bilinear && op.getMode() != "nearest")
      return rewriter.notifyMatchFailure(op, "unknown mode");
    Location loc = op.getLoc();
    auto inType = llvm::cast<RankedTensorType>(op.getInput().getType());
    auto resultType = llvm::cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    bool alignCorners = op.getAlignCorners();
    int64_t in[] = {inType.getDimSize(2), inType.getDimSize(3)};
    int64_t out[] = {resultType.getDimSize(2), resultType.getDimSize(3)};
    std::optional<double> scales[2];
    if (auto given = op.getScales())
      for (int64_t d = 0; d < 2; ++d)
        scales[d] = (*given)[d];
    Value input = op.getInput();
    Value init = rewriter.create<tensor::EmptyOp>(loc, resultType.getShape(),
                                                  elementType);
    auto body = [&](OpBuilder &b, Location l, ValueRange) {
      Type f32 = b.getF32Type(), i64 = b.getI64Type();
      auto cst = [&](int64_t v) {
        return b.create<arith::ConstantIndexOp>(l, v).getResult();
      };
      auto f32Cst = [&](float v) {
        return b.create<arith::ConstantOp>(l, f32, b.getF32FloatAttr(v))
            .getResult();
      };
      auto toF32 = [&](Value index) {
        return b.create<arith::SIToFPOp>(
            l, f32, b.create<arith::IndexCastOp>(l, i64, index));
      };
      // Non-negative f32 → index, truncating (= floor here).
      auto toIndex = [&](Value f) {
        return b.create<arith::IndexCastOp>(
            l, b.getIndexType(), b.create<arith::FPToSIOp>(l, i64, f));
      };
      Value n = b.create<linalg::IndexOp>(l, 0);
      Value c = b.create<linalg::IndexOp>(l, 1);
      if (!bilinear) {
        SmallVector<Value> indices = {n, c};
        for (int64_t d = 0; d < 2; ++d) {
          Value dst = b.create<linalg::IndexOp>(l, 2 + d);
          Value src;
          if (out[d] == in[d])
            src = dst;
          else if (out[d] == 2 * in[d])
            src = b.create<arith::DivUIOp>(l, dst, cst(2));
          else {
            float scale = interpolationScale(in[d], out[d], false, scales[d]);
            Value real = b.create<arith::MulFOp>(l, toF32(dst), f32Cst(scale));
            src = b.create<arith::MinUIOp>(l, toIndex(real), cst(in[d] - 1));
          }
          indices.push_back(src);
        }
        b.create<linalg::YieldOp>(
            l, b.create<tensor::ExtractOp>(l, input, indices).getResult());
        return;
      }
      // Bilinear: per dimension two source indices and their weights.
      Value idx[2][2], weight[2][2];
      for (int64_t d = 0; d < 2; ++d) {
        Value dst = b.create<linalg::IndexOp>(l, 2 + d);
        float scale =
            interpolationScale(in[d], out[d], alignCorners, scales[d]);
        Value real;
        if (alignCorners) {
          real = b.create<arith::MulFOp>(l, f32Cst(scale), toF32(dst));
        } else {
          Value centre = b.create<arith::AddFOp>(l, toF32(dst), f32Cst(0.5f));
          real = b.create<arith::SubFOp>(
              l, b.create<arith::MulFOp>(l, f32Cst(scale), centre),
              f32Cst(0.5f));
          real = b.create<arith::MaximumFOp>(l, real, f32Cst(0.0f));
        }
        Value i0 = toIndex(real);
        Value lambda = b.create<arith::SubFOp>(l, real, toF32(i0));
        lambda = b.create<arith::MinimumFOp>(
            l, b.create<arith::MaximumFOp>(l, lambda, f32Cst(0.0f)),
            f32Cst(1.0f));
        Value hasNext = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::ult,
                                                i0, cst(in[d] - 1));
        Value i1 = b.create<arith::SelectOp>(
            l, hasNext, b.create<arith::AddIOp>(l, i0, cst(1)), i0);
        idx[d][0] = i0;
        idx[d][1] = i1;
        weight[d][0] = b.create<arith::SubFOp>(l, f32Cst(1.0f), lambda);
        weight[d][1] = lambda;
        if (elementType != f32) {
          for (Value &wv : weight[d])
            wv =
                elementType.getIntOrFloatBitWidth() > 32
                    ? b.create<arith::ExtFOp>(l, elementType, wv).getResult()
                    : b.create<arith::TruncFOp>(l, elementType, wv).getResult();
        }
      }
      // h0 * (w0 * x00 + w1 * x01) + h1 * (w0 * x10 + w1 * x11)
      Value total;
      for (int64_t a = 0; a < 2; ++a) {
        Value row;
        for (int64_t e = 0; e < 2; ++e) {
          Value x = b.create<tensor::ExtractOp>(
              l, input, ValueRange{n, c, idx[0][a], idx[1][e]});
          Value term = b.create<arith::MulFOp>(l, weight[1][e], x);
          row = row ? b.create<arith::AddFOp>(l, row, term).getResult() : term;
        }
        Value term = b.create<arith::MulFOp>(l, weight[0][a], row);
        total =
            total ? b.create<arith::AddFOp>(l, total, term).getResult() : term;
      }
      b.create<linalg::YieldOp>(l, total);
    };
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, resultType, ValueRange{}, init,
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(4)},
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
        body);
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::nn::populateConvolutionPatterns(RewritePatternSet &patterns) {
  patterns
      .add<ConvOpLowering, ConvTransposeOpLowering, MaxPoolOpLowering,
           AvgPoolOpLowering, AdaptiveAvgPoolOpLowering, InterpolateOpLowering>(
          patterns.getContext());
}
