//===- Batched.cpp - Batched matmul and attention as kernel calls ---------===//
//
// Part of nn-lower-to-kernel-calls (KernelCalls.h): nn.matmul with batch
// dimensions becomes nn_rt_sgemm_batched, nn.scaled_dot_product_attention
// without dropout nn_rt_attention, both reading their operands through
// permutes and split pieces (strides, no copies) and writing a head-merging
// permute of their result in place.
//
//===----------------------------------------------------------------------===//

#include "KernelCalls.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::kernel_calls;
namespace abi = mlir::nn::kernel_abi;

namespace {

/// `value` read through a chain of nn.permute / nn.transpose: dimension i
/// of `value` is dimension dims[i] of `base`, the first value in the chain
/// that is not such a view. The kernels take strides, so reading `base`
/// with permuted strides replaces the copy the view would otherwise be
/// (attention's head split).
struct PermutedView {
  Value base;
  SmallVector<int64_t> dims;
};

/// The permutation of an nn.permute or nn.transpose (result dim i is input
/// dim perm[i]), or nullopt for other ops.
std::optional<SmallVector<int64_t>> viewPermutation(Operation *op) {
  if (!op)
    return std::nullopt;
  auto rankOf = [](Value v) {
    return llvm::cast<RankedTensorType>(v.getType()).getRank();
  };
  auto normalize = [](int64_t d, int64_t rank) { return d < 0 ? d + rank : d; };
  if (auto permute = llvm::dyn_cast<PermuteOp>(op)) {
    int64_t rank = rankOf(permute.getInput());
    SmallVector<int64_t> perm;
    for (int64_t d : permute.getDims())
      perm.push_back(normalize(d, rank));
    return perm;
  }
  if (auto transpose = llvm::dyn_cast<TransposeOp>(op)) {
    int64_t rank = rankOf(transpose.getInput());
    auto perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[normalize(transpose.getDim0(), rank)],
              perm[normalize(transpose.getDim1(), rank)]);
    return perm;
  }
  return std::nullopt;
}

PermutedView peelPermutes(Value value) {
  auto rank = llvm::cast<RankedTensorType>(value.getType()).getRank();
  PermutedView view{value, llvm::to_vector(llvm::seq<int64_t>(0, rank))};
  while (auto perm = viewPermutation(view.base.getDefiningOp())) {
    for (int64_t &d : view.dims)
      d = (*perm)[d];
    view.base = view.base.getDefiningOp()->getOperand(0);
  }
  return view;
}

/// `value` as a view of the tensor it was cut from, when it is a piece of
/// nn.split or an nn.reshape that only splits dimensions of such a piece
/// (attention's q, k and v out of one in-projection): an extract_slice, then
/// an expand_shape, which bufferize to strided views. Without this,
/// convert-nn-to-linalg would copy the strided piece into a contiguous
/// tensor (it must, for an arbitrary reshape), which a kernel reading
/// through strides does not need. Other values are returned as they are.
Value stridedSource(OpBuilder &b, Location loc, Value value) {
  auto pieceOfSplit = [&](Value v) -> Value {
    auto split = v.getDefiningOp<SplitOp>();
    if (!split)
      return nullptr;
    auto input = llvm::cast<RankedTensorType>(split.getInput().getType());
    auto type = llvm::cast<RankedTensorType>(v.getType());
    // I64Attr accessors return uint64_t.
    auto dim = static_cast<int64_t>(split.getDim());
    if (dim < 0)
      dim += input.getRank();
    unsigned index = llvm::cast<OpResult>(v).getResultNumber();
    int64_t offset = 0;
    for (unsigned i = 0; i < index; ++i)
      offset += split.getSplitSizes()[i];
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (int64_t d = 0; d < input.getRank(); ++d) {
      offsets.push_back(b.getIndexAttr(d == dim ? offset : 0));
      sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
      strides.push_back(b.getIndexAttr(1));
    }
    return b.create<tensor::ExtractSliceOp>(loc, type, split.getInput(),
                                            offsets, sizes, strides);
  };
  if (Value piece = pieceOfSplit(value))
    return piece;
  auto reshape = value.getDefiningOp<ReshapeOp>();
  if (!reshape)
    return value;
  auto from = llvm::cast<RankedTensorType>(reshape.getInput().getType());
  auto to = llvm::cast<RankedTensorType>(reshape.getType());
  if (to.getRank() <= from.getRank())
    return value;
  auto groups = getReassociationIndicesForReshape(from, to);
  Value piece = groups ? pieceOfSplit(reshape.getInput()) : nullptr;
  if (!piece)
    return value;
  return b.create<tensor::ExpandShapeOp>(loc, to, piece, *groups);
}

/// A single-use nn.permute / nn.transpose of `value` that keeps the last
/// dimension last (so the kernel's rows stay contiguous), or null: the
/// kernel can write its result in that order directly (attention's head
/// merge) instead of a copy.
Operation *absorbableOutputPermute(Value value) {
  if (!value.hasOneUse())
    return nullptr;
  Operation *user = *value.getUsers().begin();
  if (user->getBlock() != value.getParentBlock())
    return nullptr;
  auto perm = viewPermutation(user);
  if (!perm || perm->back() != static_cast<int64_t>(perm->size()) - 1)
    return nullptr;
  return user;
}

/// `tensor` as the nn_rt_matrix operand of a kernel that walks `shape`
/// ([batch..., rows, cols]): its dims aligned right against `shape`, a
/// missing or size-1 dim broadcast (stride 0) as nn.matmul and attention's
/// mask do, read through nn.permute / nn.transpose without a copy.
/// `transpose` swaps rows and columns (keyᵀ).
Value matrixOperand(CallBuilder &cb, Operation *anchor, Value tensor,
                    ArrayRef<int64_t> shape, bool transpose = false) {
  PermutedView view = peelPermutes(tensor);
  view.base = stridedSource(cb.b, cb.loc, view.base);
  auto [ptr, baseStrides] = cb.pointer(cb.readView(view.base));
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  int64_t rank = type.getRank(), full = shape.size();
  // The stride of dimension d of `shape`.
  auto stride = [&](int64_t d) -> Value {
    int64_t t = d - (full - rank);
    if (t < 0 || (type.getDimSize(t) == 1 && shape[d] != 1))
      return cb.i64(0);
    return baseStrides[view.dims[t]];
  };
  SmallVector<Value> batch;
  for (int64_t d = 0; d < full - 2; ++d)
    batch.push_back(stride(d));
  Value row = stride(full - 2), col = stride(full - 1);
  if (transpose)
    std::swap(row, col);
  return cb.matrix(anchor, ptr, batch, row, col);
}

/// A kernel's result of type `resultType` in a fresh buffer laid out in the
/// order of `permute` (an nn.permute / nn.transpose of the result, or null:
/// row-major).
struct MatrixResult {
  /// The nn_rt_matrix the kernel writes through.
  Value matrix;
  /// The buffer and its type (the permute's when there is one).
  Value alloc;
  RankedTensorType type;
};

MatrixResult matrixResult(CallBuilder &cb, Operation *anchor,
                          RankedTensorType resultType, Operation *permute) {
  int64_t rank = resultType.getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  auto bufferType = resultType;
  if (permute) {
    perm = *viewPermutation(permute);
    bufferType = llvm::cast<RankedTensorType>(permute->getResult(0).getType());
  }
  // Row-major strides of the buffer, then of the result's dims in it.
  SmallVector<int64_t> bufferStrides(rank, 1), strides(rank);
  for (int64_t d = rank - 2; d >= 0; --d)
    bufferStrides[d] = bufferStrides[d + 1] * bufferType.getDimSize(d + 1);
  for (int64_t i = 0; i < rank; ++i)
    strides[perm[i]] = bufferStrides[i];
  SmallVector<Value> batch;
  for (int64_t d = 0; d < rank - 2; ++d)
    batch.push_back(cb.i64(strides[d]));
  auto [alloc, ptr] = cb.output(bufferType);
  Value matrix = cb.matrix(anchor, ptr, batch, cb.i64(strides[rank - 2]),
                           cb.i64(strides[rank - 1]));
  return {matrix, alloc, bufferType};
}

/// nn.matmul with batch dimensions: one nn_rt_sgemm_batched over views of
/// its operands (a broadcast operand has batch stride 0, a transposed one
/// swapped strides), with the epilogue the 2-D form gets (each batch index
/// is an image of the addends) and a head-merging permute written in place.
struct BatchedMatmulToKernel : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!isBatchedMatmul(op))
      return rewriter.notifyMatchFailure(op, "2-D (nn_rt_sgemm's)");
    if (op->getParentOfType<FusedOp>())
      return rewriter.notifyMatchFailure(
          op, "inside an nn.fused group (lowered with its group)");
    if (const char *why = whyNoBatchedKernel(op))
      return rewriter.notifyMatchFailure(op, why);
    auto same = [](Value v) { return v; };
    KernelEpilogue e = matchEpilogue(op, same);
    Operation *permute = absorbableOutputPermute(e.result);
    rewriter.setInsertionPoint(permute              ? permute
                               : e.absorbed.empty() ? op.getOperation()
                                                    : e.absorbed.back());
    CallBuilder cb(rewriter, op.getLoc());
    auto resultType = llvm::cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> shape = resultType.getShape();
    int64_t rank = shape.size(),
            K = llvm::cast<RankedTensorType>(op.getLhs().getType())
                    .getShape()
                    .back();
    SmallVector<int64_t> lhsShape(shape), rhsShape(shape);
    lhsShape.back() = K;
    rhsShape[rank - 2] = K;
    Value a = matrixOperand(cb, op, op.getLhs(), lhsShape);
    Value b = matrixOperand(cb, op, op.getRhs(), rhsShape);
    Value epilogue = cb.epilogue(op, e);
    MatrixResult c = matrixResult(cb, op, resultType, permute);
    cb.call(op, abi::Function::nn_rt_sgemm_batched,
            {cb.batchSizes(op, shape.drop_back(2)), cb.i64(shape[rank - 2]),
             cb.i64(shape[rank - 1]), cb.i64(K), a, b, c.matrix, cb.i32(0),
             epilogue});
    rewriter.replaceAllUsesWith(permute ? permute->getResult(0) : e.result,
                                cb.result(c.alloc, c.type));
    if (permute)
      rewriter.eraseOp(permute);
    for (Operation *consumer : llvm::reverse(e.absorbed))
      rewriter.eraseOp(consumer);
    rewriter.eraseOp(op);
    return success();
  }
};

/// nn.scaled_dot_product_attention without dropout: one nn_rt_attention
/// (q·kᵀ, the scaled and masked softmax and ·v fused per query block, the
/// scores never written out), reading the head-split views in place and
/// writing a head-merging permute of its result directly.
struct AttentionToKernel
    : public OpRewritePattern<ScaledDotProductAttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScaledDotProductAttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (const char *why = whyNoBatchedKernel(op))
      return rewriter.notifyMatchFailure(op, why);
    auto resultType = llvm::cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> shape = resultType.getShape();
    int64_t rank = shape.size();
    auto keyType = llvm::cast<RankedTensorType>(op.getKey().getType());
    int64_t L = shape[rank - 2], Ev = shape[rank - 1];
    int64_t S = keyType.getDimSize(keyType.getRank() - 2);
    int64_t E = keyType.getShape().back();
    SmallVector<int64_t> qShape(shape), kShape(shape), vShape(shape),
        maskShape(shape);
    qShape.back() = E;
    kShape[rank - 2] = S, kShape.back() = E;
    vShape[rank - 2] = S;
    maskShape.back() = S;

    Operation *permute = absorbableOutputPermute(op.getResult());
    rewriter.setInsertionPoint(permute ? permute : op.getOperation());
    CallBuilder cb(rewriter, op.getLoc());
    Value q = matrixOperand(cb, op, op.getQuery(), qShape);
    Value k = matrixOperand(cb, op, op.getKey(), kShape);
    Value v = matrixOperand(cb, op, op.getValue(), vShape);
    Value mask = op.getAttnMask()
                     ? matrixOperand(cb, op, op.getAttnMask(), maskShape)
                     : cb.null();
    MatrixResult out = matrixResult(cb, op, resultType, permute);
    cb.call(op, abi::Function::nn_rt_attention,
            {cb.batchSizes(op, shape.drop_back(2)), cb.i64(L), cb.i64(S),
             cb.i64(E), cb.i64(Ev), q, k, v, mask, out.matrix,
             cb.f32(static_cast<float>(op.getScaleOrDefault())),
             cb.i32(op.getIsCausal() ? 1 : 0)});
    Value result = cb.result(out.alloc, out.type);
    if (permute) {
      rewriter.replaceOp(permute, result);
      rewriter.eraseOp(op);
    } else {
      rewriter.replaceOp(op, result);
    }
    return success();
  }
};

} // namespace

void kernel_calls::populateBatchedPatterns(RewritePatternSet &patterns) {
  patterns.add<BatchedMatmulToKernel, AttentionToKernel>(patterns.getContext());
}
