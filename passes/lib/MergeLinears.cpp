//===- MergeLinears.cpp - One matmul for linears of one input -------------===//
//
// Implements nn-merge-linears: nn.linear ops that read the same input (the
// q/k/v projections of an attention, the heads of a multi-head model)
// become one nn.linear on weights and biases concatenated in the graph,
// followed by one nn.slice per original result. The cost rule and what is
// left alone are in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nn-merge-linears"

namespace mlir::nn {
#define GEN_PASS_DEF_MERGELINEARSPASS
#include "nn/Transforms/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

namespace {

/// True when `a` and `b` can share one merged linear: both or neither with a
/// bias, weights of one type but for the output features.
bool compatible(LinearOp a, LinearOp b) {
  auto wa = llvm::cast<RankedTensorType>(a.getWeight().getType());
  auto wb = llvm::cast<RankedTensorType>(b.getWeight().getType());
  return static_cast<bool>(a.getBias()) == static_cast<bool>(b.getBias()) &&
         wa.getRank() == 2 && wb.getRank() == 2 &&
         wa.getElementType() == wb.getElementType() &&
         wa.getDimSize(1) == wb.getDimSize(1) &&
         a.getType().getElementType() == b.getType().getElementType();
}

/// True when nn-fuse will give `linear` an epilogue (its only user is a
/// pointwise op): merging would cut the result into slices, which no group
/// can absorb, and lose the fused bias/activation store.
bool feedsEpilogue(LinearOp linear) {
  return linear->hasOneUse() &&
         (*linear->user_begin())->hasTrait<OpTrait::nn::Pointwise>();
}

/// [l1, l2, ...] (each N_i × K, M rows) → one linear with the weights and
/// biases concatenated along the output features, then slices.
struct MergeLinearsOfOneInput : public OpRewritePattern<LinearOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LinearOp first,
                                PatternRewriter &rewriter) const override {
    if (llvm::isa<FusedOp>(first->getParentOp()))
      return rewriter.notifyMatchFailure(first, "inside an nn.fused group");
    // The group: linears of the same input in this block, compatible with
    // `first`, whose weights are available where `first` is. `first` must be
    // the earliest of them, so the merged op can take its place.
    DominanceInfo dominance(first->getParentOp());
    auto available = [&](LinearOp linear) {
      return dominance.properlyDominates(linear.getWeight(), first) &&
             (!linear.getBias() ||
              dominance.properlyDominates(linear.getBias(), first));
    };
    if (!available(first))
      return rewriter.notifyMatchFailure(first, "weight defined after the "
                                                "linear");
    if (feedsEpilogue(first))
      return rewriter.notifyMatchFailure(first, "nn-fuse will fuse its only "
                                                "(pointwise) user into it");
    SmallVector<LinearOp> group{first};
    for (Operation *user : first.getInput().getUsers()) {
      auto linear = llvm::dyn_cast<LinearOp>(user);
      if (!linear || linear == first || linear.getInput() != first.getInput() ||
          linear->getBlock() != first->getBlock() || !compatible(first, linear))
        continue;
      if (linear->isBeforeInBlock(first))
        return rewriter.notifyMatchFailure(
            first, "an earlier linear of the same input leads the group");
      if (available(linear) && !feedsEpilogue(linear) &&
          !llvm::is_contained(group, linear))
        group.push_back(linear);
    }
    if (group.size() < 2)
      return rewriter.notifyMatchFailure(first, "no other linear of the same "
                                                "input to merge with");
    // Program order, not use-list order: the concatenation is then the one
    // a person would write ([W_q; W_k; W_v]).
    llvm::sort(group,
               [](LinearOp a, LinearOp b) { return a->isBeforeInBlock(b); });

    // Cost rule: the input reads saved against the weight copy added.
    auto inputType = llvm::cast<RankedTensorType>(first.getInput().getType());
    int64_t rows = inputType.getNumElements() / inputType.getShape().back();
    int64_t outFeatures = 0;
    for (LinearOp linear : group)
      outFeatures += linear.getType().getShape().back();
    if ((static_cast<int64_t>(group.size()) - 1) * rows < outFeatures)
      return rewriter.notifyMatchFailure(
          first, "concatenating the weights would copy more than merging "
                 "saves ((n-1)*rows < sum of output features)");

    LLVM_DEBUG(llvm::dbgs() << "nn-merge-linears: merging " << group.size()
                            << " linears of " << first.getInput() << "\n");
    SmallVector<Value> weights, biases;
    SmallVector<Location> locs;
    for (LinearOp linear : group) {
      weights.push_back(linear.getWeight());
      if (Value bias = linear.getBias())
        biases.push_back(bias);
      locs.push_back(linear.getLoc());
    }
    Location loc = rewriter.getFusedLoc(locs);
    auto weightType = llvm::cast<RankedTensorType>(weights[0].getType());
    Type element = weightType.getElementType();
    int64_t inFeatures = weightType.getDimSize(1);
    rewriter.setInsertionPoint(first);
    IntegerAttr rows0 = rewriter.getI64IntegerAttr(0);
    Value weight = rewriter.create<CatOp>(
        loc, RankedTensorType::get({outFeatures, inFeatures}, element), weights,
        rows0);
    Value bias;
    if (!biases.empty())
      bias = rewriter.create<CatOp>(
          loc, RankedTensorType::get({outFeatures}, element), biases, rows0);
    SmallVector<int64_t> shape(first.getType().getShape());
    int64_t lastDim = shape.size() - 1;
    shape.back() = outFeatures;
    Value merged = rewriter.create<LinearOp>(
        loc, RankedTensorType::get(shape, first.getType().getElementType()),
        first.getInput(), weight, bias);

    // Every slice first: replacing `first` erases the op the insertion point
    // is anchored to.
    SmallVector<Value> parts;
    int64_t offset = 0;
    for (LinearOp linear : group) {
      int64_t size = linear.getType().getShape().back();
      parts.push_back(rewriter.create<SliceOp>(linear.getLoc(),
                                               linear.getType(), merged,
                                               lastDim, offset, offset + size,
                                               /*step=*/1));
      offset += size;
    }
    for (auto [linear, part] : llvm::zip(group, parts))
      rewriter.replaceOp(linear, part);
    return success();
  }
};

struct MergeLinearsPass
    : public nn::impl::MergeLinearsPassBase<MergeLinearsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MergeLinearsOfOneInput>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
