//===- TieWeights.cpp - One symbol per tie group --------------------------===//
//
// Implements nn-tie-weights: every nn.parameter / nn.buffer declared
// `tied_to` another state symbol (the tracer records a tensor shared under
// several state_dict names this way) is removed; its loads and stores use the
// group's root symbol, which lists the removed names in `aliases` so the
// compiled artifact still binds and reports every name. A walk over the
// module's symbols rather than a pattern: the rewrite renames symbol uses
// across every function, which is a module-level, ordered transform.
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nn-tie-weights"

namespace mlir::nn {
#define GEN_PASS_DEF_TIEWEIGHTSPASS
#include "nn/Transforms/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

namespace {

/// The parts of nn.parameter and nn.buffer the pass reads and writes.
struct StateDecl {
  Operation *op;
  StringAttr name;
  Type type;
  FlatSymbolRefAttr tiedTo;
  ArrayAttr aliases;

  static std::optional<StateDecl> get(Operation *op) {
    if (auto param = llvm::dyn_cast<ParameterOp>(op))
      return StateDecl{op, param.getSymNameAttr(), param.getType(),
                       param.getTiedToAttr(), param.getAliasesAttr()};
    if (auto buffer = llvm::dyn_cast<BufferOp>(op))
      return StateDecl{op, buffer.getSymNameAttr(), buffer.getType(),
                       buffer.getTiedToAttr(), buffer.getAliasesAttr()};
    return std::nullopt;
  }
};

struct TieWeightsPass : public nn::impl::TieWeightsPassBase<TieWeightsPass> {
  /// The root of `decl`'s tie chain (the symbol that is tied to nothing), or
  /// failure with a diagnostic on `decl`.
  static FailureOr<StateDecl> findRoot(const StateDecl &decl,
                                       SymbolTable &symbols) {
    StateDecl current = decl;
    llvm::SmallPtrSet<Operation *, 4> seen = {decl.op};
    while (current.tiedTo) {
      Operation *target = symbols.lookup(current.tiedTo.getValue());
      std::optional<StateDecl> next =
          target ? StateDecl::get(target) : std::nullopt;
      if (!next)
        return decl.op->emitOpError("is tied to '")
               << current.tiedTo.getValue()
               << "', which is not an nn.parameter or nn.buffer of the module";
      if (next->op->getName() != decl.op->getName())
        return decl.op->emitOpError("is tied to '")
               << next->name.getValue() << "', which is a "
               << next->op->getName() << ": a tie group is all parameters or "
               << "all buffers";
      if (next->type != decl.type)
        return decl.op->emitOpError("of type ")
               << decl.type << " is tied to '" << next->name.getValue()
               << "' of type " << next->type
               << ": tied tensors share one storage and must have one type";
      if (!seen.insert(next->op).second)
        return decl.op->emitOpError("is tied to itself through '")
               << next->name.getValue() << "'";
      current = *next;
    }
    return current;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<StateDecl> tied;
    for (Operation &op : module.getBody()->getOperations())
      if (std::optional<StateDecl> decl = StateDecl::get(&op))
        if (decl->tiedTo)
          tied.push_back(*decl);

    // Resolve every group before changing anything, so errors leave the
    // module as it was.
    SmallVector<std::pair<StateDecl, Operation *>> merges;
    for (const StateDecl &decl : tied) {
      FailureOr<StateDecl> root = findRoot(decl, symbols);
      if (failed(root))
        return signalPassFailure();
      merges.emplace_back(decl, root->op);
    }

    Builder b(&getContext());
    for (auto &[decl, rootOp] : merges) {
      StateDecl root = *StateDecl::get(rootOp);
      LLVM_DEBUG(llvm::dbgs() << "nn-tie-weights: " << decl.name << " → "
                              << root.name << "\n");
      if (failed(SymbolTable::replaceAllSymbolUses(decl.name, root.name,
                                                   &module.getBodyRegion()))) {
        decl.op->emitOpError("has uses that cannot be renamed");
        return signalPassFailure();
      }
      SmallVector<Attribute> aliases;
      if (root.aliases)
        llvm::append_range(aliases, root.aliases);
      aliases.push_back(decl.name);
      if (decl.aliases)
        llvm::append_range(aliases, decl.aliases);
      rootOp->setAttr("aliases", b.getArrayAttr(aliases));
      symbols.erase(decl.op);
    }
  }
};

} // namespace
