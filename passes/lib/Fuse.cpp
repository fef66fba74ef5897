//===- Fuse.cpp - Group producers with their pointwise consumers ----------===//
//
// Implements nn-fuse: a pointwise op (or a group of pointwise ops) absorbs
// the producer of one of its operands into an nn.fused group when that
// producer is a contraction, a pointwise op or an existing group, and the
// consumer is the producer's only user. Applied to a fixpoint, chains such as conv → add(residual) → relu end
// up as one group. The cost rule is in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nn-fuse"

namespace mlir::nn {
#define GEN_PASS_DEF_FUSEPASS
#include "nn/Transforms/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

namespace {

/// True when `value` keeps its full shape in `consumer` (no broadcasting up)
/// and `consumer` is its only user, so it never has to reach memory.
bool isPrivateTo(Value value, Operation *consumer) {
  if (value.getType() != consumer->getResult(0).getType())
    return false;
  return llvm::all_of(value.getUsers(),
                      [&](Operation *user) { return user == consumer; });
}

/// Why `producer` cannot start or extend a group, or null when it can.
const char *whyNotFusable(Operation *producer) {
  if (llvm::isa<FusedOp>(producer) || FusedOp::isAnchorOp(producer) ||
      producer->hasTrait<OpTrait::nn::Pointwise>())
    return nullptr;
  return "the producer is neither a contraction, a pointwise op nor a group "
         "(reductions and normalizations are never fused)";
}

/// True when the group `producer` would form or extend contains a
/// contraction; such producers are preferred, so the expensive op gets the
/// epilogue.
bool hasAnchor(Operation *producer) {
  if (auto group = llvm::dyn_cast<FusedOp>(producer))
    return group.getAnchor() != nullptr;
  return FusedOp::isAnchorOp(producer);
}

/// True for what may absorb a producer: a pointwise op, or a group of
/// pointwise ops only (a group holds at most one contraction, first).
bool isPointwiseConsumer(Operation *op) {
  if (auto group = llvm::dyn_cast<FusedOp>(op))
    return !group.getAnchor();
  return op->hasTrait<OpTrait::nn::Pointwise>();
}

/// The ops `op` computes, in order: a group's body, or `op` itself.
SmallVector<Operation *> groupBody(Operation *op) {
  if (auto group = llvm::dyn_cast<FusedOp>(op))
    return llvm::to_vector(llvm::map_range(
        group.getBody().front().without_terminator(),
        [](Operation &inner) { return &inner; }));
  return {op};
}

/// consumer(producer(...), others...) → nn.fused { producer; consumer }.
/// Either side may itself be a group, whose body is copied in.
struct FuseProducerIntoPointwiseConsumer : public RewritePattern {
  FuseProducerIntoPointwiseConsumer(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *consumer,
                                PatternRewriter &rewriter) const override {
    if (!isPointwiseConsumer(consumer))
      return rewriter.notifyMatchFailure(consumer, "not a pointwise op");
    if (llvm::isa<FusedOp>(consumer->getParentOp()))
      return rewriter.notifyMatchFailure(consumer, "already inside a group");
    auto resultType =
        llvm::dyn_cast<RankedTensorType>(consumer->getResult(0).getType());
    if (!resultType || !llvm::isa<FloatType>(resultType.getElementType()))
      return rewriter.notifyMatchFailure(consumer, "not a float tensor op");

    // Pick the operand whose producer to absorb; contractions first.
    Value fusedValue;
    for (Value operand : consumer->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer || producer->getBlock() != consumer->getBlock() ||
          producer->getNumResults() != 1 || !isPrivateTo(operand, consumer) ||
          whyNotFusable(producer))
        continue;
      if (!fusedValue || (hasAnchor(producer) &&
                          !hasAnchor(fusedValue.getDefiningOp())))
        fusedValue = operand;
    }
    if (!fusedValue)
      return rewriter.notifyMatchFailure(
          consumer, "no operand comes from a fusable producer whose only "
                    "user is this op at the same shape");
    Operation *producer = fusedValue.getDefiningOp();
    LLVM_DEBUG(llvm::dbgs() << "nn-fuse: " << *consumer << " absorbs "
                            << *producer << "\n");

    // The group's inputs: the producer's, then the consumer's others.
    llvm::SetVector<Value> inputs(producer->operand_begin(),
                                  producer->operand_end());
    for (Value operand : consumer->getOperands())
      if (operand != fusedValue)
        inputs.insert(operand);

    Location loc = rewriter.getFusedLoc({producer->getLoc(), consumer->getLoc()});
    auto fused = rewriter.create<FusedOp>(loc, resultType, inputs.getArrayRef());
    OpBuilder::InsertionGuard guard(rewriter);
    SmallVector<Location> argLocs;
    for (Value input : inputs)
      argLocs.push_back(input.getLoc());
    Block *body = rewriter.createBlock(
        &fused.getBody(), fused.getBody().end(),
        ValueRange(inputs.getArrayRef()).getTypes(), argLocs);
    IRMapping mapping;
    for (auto [input, arg] : llvm::zip(inputs, body->getArguments()))
      mapping.map(input, arg);
    // A group's arguments stand for its inputs (for the consumer, the fused
    // value is the producer's result, mapped below first).
    auto mapArguments = [&](Operation *op) {
      if (auto group = llvm::dyn_cast<FusedOp>(op))
        for (auto [arg, input] :
             llvm::zip(group.getBody().getArguments(), group.getInputs()))
          mapping.map(arg, mapping.lookup(input));
    };
    auto cloneBody = [&](Operation *op) -> Value {
      mapArguments(op);
      Operation *last = nullptr;
      for (Operation *inner : groupBody(op))
        last = rewriter.clone(*inner, mapping);
      if (auto group = llvm::dyn_cast<FusedOp>(op))
        return mapping.lookup(group.getYielded());
      return last->getResult(0);
    };
    mapping.map(fusedValue, cloneBody(producer));
    Value result = cloneBody(consumer);
    rewriter.create<YieldOp>(loc, result);

    rewriter.replaceOp(consumer, fused.getResult());
    rewriter.eraseOp(producer);
    return success();
  }
};

struct FusePass : public nn::impl::FusePassBase<FusePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseProducerIntoPointwiseConsumer>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(),
                                            std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
