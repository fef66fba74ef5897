//===- Fuse.cpp - Group producers with their pointwise consumers ----------===//
//
// Implements nn-fuse: a pointwise op (or a group of pointwise ops) absorbs
// the producer of one of its operands into an nn.fused group when that
// producer is a contraction, a pointwise op or an existing group, and the
// consumer is the producer's only user. Applied to a fixpoint, chains such as
// conv → add(residual) → relu end up as one group. The cost rule is in
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/BitVector.h"
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
    return llvm::to_vector(
        llvm::map_range(group.getBody().front().without_terminator(),
                        [](Operation &inner) { return &inner; }));
  return {op};
}

/// consumer(producer(...), others...) → nn.fused { producer; consumer }.
/// Either side may itself be a group: a producer group grows in place, a
/// consumer group's body is copied in.
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
      if (!fusedValue ||
          (hasAnchor(producer) && !hasAnchor(fusedValue.getDefiningOp())))
        fusedValue = operand;
    }
    if (!fusedValue)
      return rewriter.notifyMatchFailure(
          consumer, "no operand comes from a fusable producer whose only "
                    "user is this op at the same shape");
    Operation *producer = fusedValue.getDefiningOp();
    LLVM_DEBUG(llvm::dbgs()
               << "nn-fuse: " << *consumer << " absorbs " << *producer << "\n");
    if (auto group = llvm::dyn_cast<FusedOp>(producer))
      extendGroup(group, fusedValue, consumer, rewriter);
    else if (auto group = llvm::dyn_cast<FusedOp>(consumer))
      absorbProducer(group, fusedValue, producer, rewriter);
    else
      createGroup(producer, fusedValue, consumer, resultType, rewriter);
    return success();
  }

private:
  /// The ops `op` computes cloned at the rewriter's insertion point, `op`'s
  /// operands (a group's inputs) read through `mapping`; returns the value
  /// `op` yields.
  static Value cloneBody(Operation *op, IRMapping &mapping,
                         PatternRewriter &rewriter) {
    // A group's arguments stand for its inputs.
    if (auto group = llvm::dyn_cast<FusedOp>(op))
      for (auto [arg, input] :
           llvm::zip(group.getBody().getArguments(), group.getInputs()))
        mapping.map(arg, mapping.lookup(input));
    Operation *last = nullptr;
    for (Operation *inner : groupBody(op))
      last = rewriter.clone(*inner, mapping);
    if (auto group = llvm::dyn_cast<FusedOp>(op))
      return mapping.lookup(group.getYielded());
    return last->getResult(0);
  }

  /// `consumer` appended to the group `producer` in place: its other
  /// operands become new inputs (after the group's own, as createGroup
  /// orders them) and its ops go before the yield. Growing the group this
  /// way costs the consumer's size, not the group's, so a chain of N
  /// pointwise ops is fused in O(N) (rebuilding the group at every step
  /// was O(N^2)). The group keeps its location; each op inside has its own.
  static void extendGroup(FusedOp group, Value fusedValue, Operation *consumer,
                          PatternRewriter &rewriter) {
    // The consumer's other operands may be defined after the group: the
    // group moves down to the consumer (its only user).
    rewriter.moveOpBefore(group, consumer);
    Block &body = group.getBody().front();
    Operation *yield = body.getTerminator();
    IRMapping mapping;
    for (auto [arg, input] : llvm::zip(body.getArguments(), group.getInputs()))
      mapping.map(input, arg);
    mapping.map(fusedValue, yield->getOperand(0));
    rewriter.modifyOpInPlace(group, [&] {
      for (Value operand : consumer->getOperands()) {
        if (mapping.contains(operand))
          continue;
        group->insertOperands(group->getNumOperands(), operand);
        mapping.map(operand,
                    body.addArgument(operand.getType(), operand.getLoc()));
      }
    });
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(yield);
    Value result = cloneBody(consumer, mapping, rewriter);
    rewriter.modifyOpInPlace(yield, [&] { yield->setOperand(0, result); });
    rewriter.replaceOp(consumer, group.getResult());
  }

  /// The op `producer` moved to the front of the group `consumer` in place,
  /// its operands first among the group's inputs and the input that stood
  /// for its result gone: the group createGroup would build, at the cost of
  /// the producer and the inputs, not of the group's body.
  static void absorbProducer(FusedOp group, Value fusedValue,
                             Operation *producer, PatternRewriter &rewriter) {
    Block &body = group.getBody().front();
    llvm::SetVector<Value> producerInputs(producer->operand_begin(),
                                          producer->operand_end());
    unsigned added = producerInputs.size();
    IRMapping mapping;
    rewriter.modifyOpInPlace(group, [&] {
      group->insertOperands(0, producerInputs.getArrayRef());
      for (auto [i, input] : llvm::enumerate(producerInputs))
        mapping.map(input,
                    body.insertArgument(static_cast<unsigned>(i),
                                        input.getType(), input.getLoc()));
    });
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&body);
    Value produced = rewriter.clone(*producer, mapping)->getResult(0);
    // The old arguments that stand for the producer's result or for one of
    // its operands (now an argument in front) go.
    llvm::BitVector gone(body.getNumArguments());
    for (unsigned i = added, e = body.getNumArguments(); i < e; ++i) {
      Value input = group->getOperand(i);
      Value replacement =
          input == fusedValue ? produced : mapping.lookupOrNull(input);
      if (!replacement)
        continue;
      rewriter.replaceAllUsesWith(body.getArgument(i), replacement);
      gone.set(i);
    }
    rewriter.modifyOpInPlace(group, [&] {
      body.eraseArguments(gone);
      for (int i = static_cast<int>(gone.size()) - 1; i >= 0; --i)
        if (gone.test(static_cast<unsigned>(i)))
          group->eraseOperand(static_cast<unsigned>(i));
    });
    rewriter.eraseOp(producer);
  }

  /// consumer(producer(...), others...) → nn.fused { producer; consumer },
  /// the consumer possibly a group (of pointwise ops) whose body is copied
  /// in.
  static void createGroup(Operation *producer, Value fusedValue,
                          Operation *consumer, RankedTensorType resultType,
                          PatternRewriter &rewriter) {
    // The group's inputs: the producer's, then the consumer's others.
    llvm::SetVector<Value> inputs(producer->operand_begin(),
                                  producer->operand_end());
    for (Value operand : consumer->getOperands())
      if (operand != fusedValue)
        inputs.insert(operand);

    Location loc =
        rewriter.getFusedLoc({producer->getLoc(), consumer->getLoc()});
    auto fused =
        rewriter.create<FusedOp>(loc, resultType, inputs.getArrayRef());
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
    mapping.map(fusedValue, cloneBody(producer, mapping, rewriter));
    Value result = cloneBody(consumer, mapping, rewriter);
    rewriter.create<YieldOp>(loc, result);

    rewriter.replaceOp(consumer, fused.getResult());
    rewriter.eraseOp(producer);
  }
};

struct FusePass : public nn::impl::FusePassBase<FusePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseProducerIntoPointwiseConsumer>(&getContext());
    // Producers before their consumers, so a chain grows one group in place
    // (extendGroup) instead of merging groups pairwise.
    GreedyRewriteConfig config;
    config.useTopDownTraversal = true;
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns),
                                            config)))
      signalPassFailure();
  }
};

} // namespace
