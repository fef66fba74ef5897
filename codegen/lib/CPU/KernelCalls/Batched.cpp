//===- Batched.cpp - Batched matmul and attention as kernel calls ---------===//
//
// Part of convert-nn-to-kernel (KernelCalls.h): nn.matmul with batch
// dimensions becomes nn_kernel.batch_matmul, nn.scaled_dot_product_attention
// without dropout nn_kernel.attention, both reading their operands through
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

/// `tensor` as a kernel op reads it: the tensor it was viewed from through
/// nn.permute / nn.transpose and split pieces (no copies), and the
/// permutation that reads it (null: none).
std::pair<Value, DenseI64ArrayAttr> operandView(OpBuilder &b, Location loc,
                                                Value tensor) {
  if (!tensor)
    return {nullptr, nullptr};
  PermutedView view = peelPermutes(tensor);
  Value base = stridedSource(b, loc, view.base);
  bool identity = llvm::equal(
      view.dims, llvm::seq<int64_t>(0, static_cast<int64_t>(view.dims.size())));
  return {base, identity ? nullptr : b.getDenseI64ArrayAttr(view.dims)};
}

/// The init of a kernel op writing `resultType` in the order of `permute`
/// (an nn.permute / nn.transpose of the result, or null: row-major), and
/// the permutation (null: none).
std::pair<Value, DenseI64ArrayAttr> resultView(OpBuilder &b, Location loc,
                                               RankedTensorType resultType,
                                               Operation *permute) {
  if (!permute)
    return {b.create<tensor::EmptyOp>(loc, resultType.getShape(),
                                      resultType.getElementType()),
            nullptr};
  auto type = llvm::cast<RankedTensorType>(permute->getResult(0).getType());
  return {
      b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType()),
      b.getDenseI64ArrayAttr(*viewPermutation(permute))};
}

} // namespace

Value kernel_calls::emitBatchedMatmul(PatternRewriter &rewriter, MatmulOp op,
                                      OutsideFn outside,
                                      const KernelEpilogue &e,
                                      Operation *permute) {
  Location loc = op.getLoc();
  auto [a, aPerm] = operandView(rewriter, loc, outside(op.getLhs()));
  auto [b, bPerm] = operandView(rewriter, loc, outside(op.getRhs()));
  auto [init, outPerm] = resultView(
      rewriter, loc, llvm::cast<RankedTensorType>(op.getType()), permute);
  return rewriter
      .create<kernel::BatchMatmulOp>(loc, init.getType(), a, b, addendValues(e),
                                     init, aPerm, bPerm, outPerm,
                                     epilogueAttr(rewriter.getContext(), e))
      .getResult();
}

namespace {

/// nn.matmul with batch dimensions: one nn_kernel.batch_matmul over views
/// of its operands (a broadcast operand has batch stride 0, a transposed one
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
    Value result = emitBatchedMatmul(rewriter, op, same, e, permute);
    rewriter.replaceAllUsesWith(permute ? permute->getResult(0) : e.result,
                                result);
    if (permute)
      rewriter.eraseOp(permute);
    for (Operation *consumer : llvm::reverse(e.absorbed))
      rewriter.eraseOp(consumer);
    rewriter.eraseOp(op);
    return success();
  }
};

/// nn.scaled_dot_product_attention without dropout: one nn_kernel.attention
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
    Operation *permute = absorbableOutputPermute(op.getResult());
    rewriter.setInsertionPoint(permute ? permute : op.getOperation());
    Location loc = op.getLoc();
    auto [q, qPerm] = operandView(rewriter, loc, op.getQuery());
    auto [k, kPerm] = operandView(rewriter, loc, op.getKey());
    auto [v, vPerm] = operandView(rewriter, loc, op.getValue());
    auto [mask, maskPerm] = operandView(rewriter, loc, op.getAttnMask());
    auto [init, outPerm] = resultView(
        rewriter, loc, llvm::cast<RankedTensorType>(op.getType()), permute);
    auto scale =
        rewriter.getF32FloatAttr(static_cast<float>(op.getScaleOrDefault()));
    UnitAttr causal = op.getIsCausal() ? rewriter.getUnitAttr() : nullptr;
    auto attention = rewriter.create<kernel::AttentionOp>(
        loc, init.getType(), q, k, v, mask, init, scale, causal, qPerm, kPerm,
        vPerm, maskPerm, outPerm);
    Value result = attention.getResult();
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
