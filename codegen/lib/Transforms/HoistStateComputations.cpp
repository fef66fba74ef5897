//===- HoistStateComputations.cpp - State-only values into @prepare -------===//
//
// Implements nn-hoist-state-computations (see Passes.td): what forward
// computes from the weights alone (batch-norm folding, W * s) moves into the
// artifact's @prepare, run once when the weights are bound, and forward
// reads the results from its context instead of recomputing them per call.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/Passes.h"
#include "nn/IR/NNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nn-hoist-state-computations"

namespace mlir::nn {
#define GEN_PASS_DEF_HOISTSTATECOMPUTATIONSPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

namespace {

/// Elements of a statically shaped tensor (1 for other types, so scalars
/// never count as growth).
int64_t elementCount(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() ? tensor.getNumElements() : 1;
}

/// Whether `op` may move to @prepare given which values are state-only:
/// pure, no region reading from above, every operand state-only, and no
/// result larger than its largest operand (see Passes.td).
bool isHoistable(Operation *op, const llvm::DenseSet<Value> &stateOnly) {
  if (op->getNumResults() == 0 || !isPure(op))
    return false;
  if (op->getNumRegions() != 0 && !op->hasTrait<OpTrait::IsIsolatedFromAbove>())
    return false;
  int64_t largestOperand = 0;
  for (Value operand : op->getOperands()) {
    if (!stateOnly.contains(operand))
      return false;
    largestOperand = std::max(largestOperand, elementCount(operand.getType()));
  }
  if (op->getNumOperands() == 0) // a constant: never worth a slot alone
    return true;
  return llvm::all_of(op->getResultTypes(), [&](Type type) {
    return elementCount(type) <= largestOperand;
  });
}

/// Whether `value` is worth computing in @prepare: not a plain read of the
/// state or a constant, which forward has as cheaply.
bool isPrecomputed(Value value) {
  Operation *def = value.getDefiningOp();
  return def && !llvm::isa<LoadOp>(def) &&
         !def->hasTrait<OpTrait::ConstantLike>();
}

struct HoistStateComputationsPass
    : public mlir::nn::impl::HoistStateComputationsPassBase<
          HoistStateComputationsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto forward = module.lookupSymbol<func::FuncOp>(function);
    if (!forward || forward.isDeclaration())
      return;
    if (Operation *existing = module.lookupSymbol("prepare")) {
      existing->emitOpError("the module already has a @prepare; "
                            "nn-hoist-state-computations creates it");
      return signalPassFailure();
    }
    if (!forward.getBody().hasOneBlock()) {
      forward.emitOpError("must have a single block to split off @prepare");
      return signalPassFailure();
    }

    // State forward (or any function) writes is not constant between
    // bindings: train-mode batch-norm statistics.
    llvm::StringSet<> written;
    module.walk([&](StoreOp store) { written.insert(store.getName()); });

    Block &body = forward.getBody().front();
    llvm::SmallPtrSet<Operation *, 4> deadBefore;
    for (Operation &op : body.without_terminator())
      if (op.getNumResults() != 0 && op.use_empty())
        deadBefore.insert(&op);
    llvm::DenseSet<Value> stateOnly;
    SmallVector<Operation *> hoisted;
    for (Operation &op : body.without_terminator()) {
      bool moves = false;
      if (auto load = llvm::dyn_cast<LoadOp>(op))
        moves = !written.contains(load.getName());
      else
        moves = isHoistable(&op, stateOnly);
      if (!moves)
        continue;
      hoisted.push_back(&op);
      stateOnly.insert(op.getResults().begin(), op.getResults().end());
    }

    // The values forward still reads (an op that stays, or one nested in
    // it, uses them), in order of definition.
    llvm::SmallPtrSet<Operation *, 16> moved(hoisted.begin(), hoisted.end());
    llvm::SetVector<Value> crossing;
    for (Operation *op : hoisted)
      for (Value result : op->getResults())
        if (isPrecomputed(result) &&
            llvm::any_of(result.getUses(), [&](OpOperand &use) {
              return !moved.contains(
                  body.findAncestorOpInBlock(*use.getOwner()));
            }))
          crossing.insert(result);

    OpBuilder b(module.getContext());
    b.setInsertionPoint(forward);
    SmallVector<Type> types;
    SmallVector<int64_t> bytes;
    for (Value value : crossing) {
      types.push_back(value.getType());
      auto type = llvm::cast<RankedTensorType>(value.getType());
      bytes.push_back(type.getNumElements() *
                      ((type.getElementTypeBitWidth() + 7) / 8));
    }
    auto prepare = b.create<func::FuncOp>(forward.getLoc(), "prepare",
                                          b.getFunctionType({}, types));
    b.setInsertionPointToStart(prepare.addEntryBlock());
    IRMapping mapping;
    for (Operation *op : hoisted)
      b.clone(*op, mapping);
    SmallVector<Value> results;
    for (Value value : crossing)
      results.push_back(mapping.lookup(value));
    b.create<func::ReturnOp>(forward.getLoc(), results);
    // Loads and constants forward keeps for itself were cloned too.
    SmallVector<Operation *> cloned;
    for (Operation &op : prepare.getBody().front().without_terminator())
      cloned.push_back(&op);
    for (Operation *op : llvm::reverse(cloned))
      if (isOpTriviallyDead(op))
        op->erase();

    // Forward reads each crossing value from its context slot.
    for (auto [slot, value] : llvm::enumerate(crossing)) {
      forward.insertArgument(
          slot, value.getType(),
          b.getDictionaryAttr(
              b.getNamedAttr(NNAttr::kContextSlot, b.getI64IntegerAttr(slot))),
          value.getLoc());
      Value(value).replaceAllUsesWith(forward.getArgument(slot));
    }
    // What moved is dead in forward now, except loads and constants that
    // forward still reads itself. What was dead before stays: a dead load
    // still makes its state an argument (the description, computed before
    // lowering, lists it so), and removing it is canonicalization's job.
    for (Operation *op : llvm::reverse(hoisted))
      if (op->use_empty() && !deadBefore.contains(op))
        op->erase();

    LLVM_DEBUG(llvm::dbgs() << "nn-hoist-state-computations: " << hoisted.size()
                            << " ops into @prepare, " << crossing.size()
                            << " values cross\n");
    module->setAttr(NNAttr::kContextSlots,
                    b.getI64IntegerAttr(static_cast<int64_t>(crossing.size())));
    module->setAttr(NNAttr::kContextBytes, b.getDenseI64ArrayAttr(bytes));
  }
};

} // namespace
