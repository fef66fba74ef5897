//===- Contraction.cpp - GEMM and convolution as kernel calls -------------===//
//
// Part of convert-nn-to-kernel (KernelCalls.h): nn.matmul (2-D),
// nn.linear and nn.conv, alone with the consumers their epilogue absorbs,
// or leading an nn.fused group, become nn_kernel.gemm / nn_kernel.conv2d,
// their constant weights packed once by @prepare.
//
//===----------------------------------------------------------------------===//

#include "KernelCalls.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "convert-nn-to-kernel"

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::kernel_calls;
namespace abi = mlir::nn::kernel_abi;

namespace {

/// `value` reshaped between [d0, ..., dn] and [d0 * ... * dn-1, dn] (either
/// direction, `type` being the target): nn.linear's leading dimensions are
/// the GEMM's rows. A rank-1 side is one row.
Value reshapeRows(PatternRewriter &rewriter, Location loc, Value value,
                  RankedTensorType type) {
  auto from = llvm::cast<RankedTensorType>(value.getType());
  if (from.getRank() == type.getRank())
    return value;
  bool expand = type.getRank() > from.getRank();
  // The rank of the side that is not the GEMM's [rows, cols].
  int64_t rank = from.getRank() == 2 ? type.getRank() : from.getRank();
  SmallVector<ReassociationIndices> groups;
  if (rank == 1) {
    groups.push_back({0, 1});
  } else {
    ReassociationIndices leading;
    for (int64_t i = 0; i + 1 < rank; ++i)
      leading.push_back(i);
    groups = {leading, {rank - 1}};
  }
  if (expand)
    return rewriter.create<tensor::ExpandShapeOp>(loc, type, value, groups);
  return rewriter.create<tensor::CollapseShapeOp>(loc, type, value, groups);
}

/// A fresh tensor for a kernel op to write.
Value init(PatternRewriter &rewriter, Location loc, RankedTensorType type) {
  return rewriter.create<tensor::EmptyOp>(loc, type.getShape(),
                                          type.getElementType());
}

/// `rhs` as windows of rows of one matrix: an nn.cat along dim 1 of
/// nn.slices along dim 0 (step 1) of one static [R, W] f32 value (a
/// convolution's weight gradient, see nn-autodiff). Returns that value and
/// each window's first row, or nothing.
std::optional<std::pair<Value, SmallVector<int64_t>>> rowWindows(Value rhs) {
  auto cat = rhs.getDefiningOp<CatOp>();
  if (!cat || (cat.getDim() != 1 && cat.getDim() != -1))
    return std::nullopt;
  Value base;
  SmallVector<int64_t> starts;
  for (Value part : cat.getInputs()) {
    auto slice = part.getDefiningOp<SliceOp>();
    if (!slice || (slice.getDim() != 0 && slice.getDim() != -2) ||
        slice.getStep() != 1 || slice.getStart() < 0 ||
        (base && slice.getInput() != base))
      return std::nullopt;
    base = slice.getInput();
    starts.push_back(slice.getStart());
  }
  if (!base || !staticF32(base, 2))
    return std::nullopt;
  return std::make_pair(base, starts);
}

/// Emits the kernel op that computes `contraction` (its operands mapped
/// through `outside`) with the epilogue `e`, at the rewriter's insertion
/// point; returns the result, of the contraction's type.
Value emitKernel(PatternRewriter &rewriter, Operation *contraction,
                 OutsideFn outside, const KernelEpilogue &e, Packer &packer) {
  Location loc = contraction->getLoc();
  auto resultType =
      llvm::cast<RankedTensorType>(contraction->getResult(0).getType());
  kernel::EpilogueAttr epilogue = epilogueAttr(rewriter.getContext(), e);
  SmallVector<Value> addends = addendValues(e);

  if (auto conv = llvm::dyn_cast<ConvOp>(contraction)) {
    // The kernel reads NCHW / OIHW row-major.
    Value input = outside(conv.getInput()), weight = outside(conv.getWeight());
    ArrayRef<int64_t> in =
        llvm::cast<RankedTensorType>(input.getType()).getShape();
    DenseI64ArrayAttr stride = conv.getStrideAttr(),
                      padding = conv.getPaddingAttr(),
                      dilation = conv.getDilationAttr();
    // The geometry decides the kernel, and so the packed weight's layout.
    std::string layout;
    {
      llvm::raw_string_ostream os(layout);
      for (ArrayRef<int64_t> part :
           {in, resultType.getShape(), stride.asArrayRef(),
            padding.asArrayRef(), dilation.asArrayRef()}) {
        llvm::interleaveComma(part, os);
        os << ';';
      }
    }
    // A state-only weight is packed once by @prepare (depthwise reads its
    // weights as they are).
    bool depthwise = isDepthwise(conv);
    Value packed =
        depthwise
            ? Value()
            : packer.packed(
                  rewriter, loc, weight, PackKind::convWeight, layout,
                  [&](OpBuilder &b, Value source, Value context, int64_t slot) {
                    b.create<kernel::PackConv2dWeightOp>(
                        loc, source, context, slot,
                        b.getDenseI64ArrayAttr(in.drop_front()), stride,
                        padding, dilation);
                  });
    auto op = rewriter.create<kernel::Conv2dOp>(
        loc, resultType, input, packed ? packed : weight, addends,
        init(rewriter, loc, resultType), stride, padding, dilation, depthwise,
        epilogue);
    return op.getResult();
  }

  // C[M, N] = A[M, K] x B[K, N]. The left side's leading dimensions are the
  // GEMM's rows: nn.linear's input, and a matmul's, whose right side is a
  // matrix here (PyTorch's matmul folds them likewise).
  auto matmul = llvm::dyn_cast<MatmulOp>(contraction);
  auto linear = llvm::dyn_cast<LinearOp>(contraction);
  Value left = matmul ? matmul.getLhs() : linear.getInput();
  Value rhs = outside(matmul ? matmul.getRhs() : linear.getWeight());
  bool transposed = !matmul; // B[k, n] = rhs[n, k] (nn.linear's weight)
  auto leftType = llvm::cast<RankedTensorType>(left.getType());
  int64_t K = leftType.getShape().back(), N = resultType.getShape().back();
  int64_t M = leftType.getNumElements() / K;
  Value lhs = reshapeRows(rewriter, loc, outside(left),
                          RankedTensorType::get({M, K}, rewriter.getF32Type()));
  // A transposed matrix (a weight gradient's dYᵀ) is read in place.
  bool transposedA = false;
  if (auto transpose = lhs.getDefiningOp<TransposeOp>()) {
    if (staticF32(transpose.getInput(), 2))
      lhs = transpose.getInput(), transposedA = true;
  }
  auto outType = RankedTensorType::get({M, N}, rewriter.getF32Type());
  if (auto windows = matmul ? rowWindows(rhs) : std::nullopt) {
    auto op = rewriter.create<kernel::GemmOp>(
        loc, outType, lhs, windows->first, addends,
        init(rewriter, loc, outType), transposedA, /*transpose_b=*/false,
        rewriter.getDenseI64ArrayAttr(windows->second), epilogue);
    return reshapeRows(rewriter, loc, op.getResult(), resultType);
  }
  Value packed = packer.packed(
      rewriter, loc, rhs,
      transposed ? PackKind::linearWeight : PackKind::matmulRhs,
      /*layout=*/"",
      [&](OpBuilder &b, Value source, Value context, int64_t slot) {
        b.create<kernel::PackGemmBOp>(loc, source, context, slot, transposed);
      });
  auto op = rewriter.create<kernel::GemmOp>(
      loc, outType, lhs, packed ? packed : rhs, addends,
      init(rewriter, loc, outType), transposedA, transposed,
      /*b_row_windows=*/nullptr, epilogue);
  return reshapeRows(rewriter, loc, op.getResult(), resultType);
}

/// A contraction outside any group, with the consumers its epilogue
/// absorbs (conv → add → relu written as separate ops).
template <typename OpTy>
struct ContractionToKernel : public OpRewritePattern<OpTy> {
  ContractionToKernel(MLIRContext *context, Packer &packer)
      : OpRewritePattern<OpTy>(context), packer(packer) {}
  Packer &packer;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (op->template getParentOfType<FusedOp>())
      return rewriter.notifyMatchFailure(
          op, "inside an nn.fused group (lowered with its group)");
    if (const char *why = whyNoKernel(op))
      return rewriter.notifyMatchFailure(op, why);
    auto same = [](Value v) { return v; };
    KernelEpilogue e = matchEpilogue(op, same);
    // An addend is defined before the consumer that reads it, maybe after op.
    rewriter.setInsertionPoint(e.absorbed.empty() ? op.getOperation()
                                                  : e.absorbed.back());
    Value result = emitKernel(rewriter, op, same, e, packer);
    rewriter.replaceAllUsesWith(e.result, result);
    for (Operation *consumer : llvm::reverse(e.absorbed))
      rewriter.eraseOp(consumer);
    rewriter.eraseOp(op);
    return success();
  }
};

/// A pointwise nn.fused group computing `ops` (cloned in order), returning
/// `yielded`; `outside` maps every value they read from beyond themselves to
/// a value at the insertion point.
Value buildPointwiseGroup(PatternRewriter &rewriter, Location loc,
                          ArrayRef<Operation *> ops, Value yielded,
                          const IRMapping &outside, Type resultType) {
  llvm::SmallPtrSet<Operation *, 8> inside(ops.begin(), ops.end());
  llvm::SetVector<Value> leaves;
  for (Operation *op : ops)
    for (Value operand : op->getOperands())
      if (!inside.contains(operand.getDefiningOp()))
        leaves.insert(operand);
  SmallVector<Value> inputs;
  for (Value leaf : leaves)
    inputs.push_back(outside.lookup(leaf));
  auto group = rewriter.create<FusedOp>(loc, resultType, inputs);
  OpBuilder::InsertionGuard guard(rewriter);
  SmallVector<Location> locs(inputs.size(), loc);
  Block *block = rewriter.createBlock(&group.getBody(), {},
                                      ValueRange(inputs).getTypes(), locs);
  IRMapping mapping;
  for (auto [leaf, arg] : llvm::zip(leaves, block->getArguments()))
    mapping.map(leaf, arg);
  for (Operation *op : ops)
    rewriter.clone(*op, mapping);
  rewriter.create<YieldOp>(loc, mapping.lookup(yielded));
  return group.getResult();
}

/// An nn.fused group led by a contraction: the contraction and the prefix
/// of its epilogue the kernel's store applies become one kernel call; the
/// rest (gelu, sigmoid, a chain reading other epilogue values, ...) stays a
/// pointwise group over the kernel's result, one loop nest as before.
struct FusedGroupToKernel : public OpRewritePattern<FusedOp> {
  FusedGroupToKernel(MLIRContext *context, Packer &packer)
      : OpRewritePattern(context), packer(packer) {}
  Packer &packer;
  LogicalResult matchAndRewrite(FusedOp op,
                                PatternRewriter &rewriter) const override {
    Operation *anchor = op.getAnchor();
    if (!anchor)
      return rewriter.notifyMatchFailure(op, "no contraction in the group");
    bool batched = isBatchedMatmul(anchor);
    if (const char *why =
            batched ? whyNoBatchedKernel(anchor) : whyNoKernel(anchor))
      return rewriter.notifyMatchFailure(op, why);
    Block &body = op.getBody().front();
    Value yielded = op.getYielded();
    if (yielded.getParentBlock() != &body || llvm::isa<BlockArgument>(yielded))
      return rewriter.notifyMatchFailure(op, "the group returns an input");

    IRMapping outside;
    for (auto [arg, input] : llvm::zip(body.getArguments(), op.getInputs()))
      outside.map(arg, input);
    KernelEpilogue e =
        matchEpilogue(anchor, [&](Value v) { return outside.lookupOrNull(v); });
    LLVM_DEBUG(llvm::dbgs()
               << "convert-nn-to-kernel: group at " << op.getLoc() << " keeps "
               << e.absorbed.size() << " consumers in the kernel's store\n");
    rewriter.setInsertionPoint(op);
    auto lookup = [&](Value v) { return outside.lookupOrNull(v); };
    Value result =
        batched ? emitBatchedMatmul(rewriter, llvm::cast<MatmulOp>(anchor),
                                    lookup, e, /*permute=*/nullptr)
                : emitKernel(rewriter, anchor, lookup, e, packer);

    SmallVector<Operation *> rest;
    for (Operation &inner : body.without_terminator())
      if (&inner != anchor && !llvm::is_contained(e.absorbed, &inner))
        rest.push_back(&inner);
    if (!rest.empty()) {
      outside.map(e.result, result);
      result = buildPointwiseGroup(rewriter, op.getLoc(), rest, yielded,
                                   outside, op.getType());
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void kernel_calls::populateContractionPatterns(RewritePatternSet &patterns,
                                               Packer &packer) {
  patterns.add<ContractionToKernel<MatmulOp>, ContractionToKernel<LinearOp>,
               ContractionToKernel<ConvOp>, FusedGroupToKernel>(
      patterns.getContext(), packer);
}
