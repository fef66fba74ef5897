//===- LowerStateToArguments.cpp - nn state symbols to arguments ----------===//
//
// Implements nn-lower-state-to-arguments: the artifact's calling convention
// passes every parameter and buffer by pointer ahead of the inputs, in
// declaration order. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/Passes.h"
#include "nn/IR/NNOps.h"
#include "nn/Kernel/KernelDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::nn {
#define GEN_PASS_DEF_LOWERSTATETOARGUMENTSPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

namespace {

struct LowerStateToArgumentsPass
    : public mlir::nn::impl::LowerStateToArgumentsPassBase<
          LowerStateToArgumentsPass> {
  /// Turns the nn.store ops of `func` into writes into their buffer
  /// arguments, placed before the return (see the file comment).
  static LogicalResult lowerStores(func::FuncOp func,
                                   const llvm::StringMap<unsigned> &argIndex) {
    SmallVector<StoreOp> stores;
    func.walk([&](StoreOp store) { stores.push_back(store); });
    if (stores.empty())
      return success();
    llvm::StringMap<StoreOp> last;
    for (StoreOp store : stores) {
      if (!argIndex.count(store.getName()))
        return store.emitOpError("writes state outside a public function, "
                                 "which has no state arguments");
      if (store->getParentRegion() != &func.getBody() ||
          !func.getBody().hasOneBlock())
        return store.emitOpError("must be in the single block of its "
                                 "function");
      last[store.getName()] = store;
    }
    Operation *terminator = func.getBody().front().getTerminator();
    OpBuilder b(terminator);
    for (StoreOp store : stores) {
      if (last[store.getName()] == store) {
        unsigned index = argIndex.lookup(store.getName());
        BlockArgument arg = func.getArgument(index);
        if (store.getValue() != arg) {
          b.create<kernel::WriteStateOp>(store.getLoc(), store.getValue(), arg);
          func.setArgAttr(index, "bufferization.writable", b.getBoolAttr(true));
        }
      }
      store.erase();
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Declarations in order: key, type and embedded value (or null).
    struct State {
      StringRef name;
      Type type;
      ElementsAttr embedded;
    };
    SmallVector<State> state;
    SmallVector<Operation *> declarations;
    llvm::DenseSet<StringAttr> written = writtenState(module);
    // State no function reads or writes (dead after canonicalization) gets
    // no argument; the artifact description still lists it, so its
    // state_dict keys bind.
    for (Operation &op : module.getBody()->getOperations()) {
      if (!llvm::isa<ParameterOp, BufferOp>(op))
        continue;
      declarations.push_back(&op);
      auto name =
          op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
      if (!isStateUsed(module, name))
        continue;
      state.push_back({name.getValue(), declaredStateType(&op),
                       embeddedValue(&op, written)});
    }

    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isDeclaration())
        continue;
      llvm::StringMap<unsigned> argIndex;
      if (func.isPublic()) {
        unsigned count = state.size();
        SmallVector<unsigned> positions(count, 0);
        SmallVector<Type> types;
        SmallVector<DictionaryAttr> attrs;
        SmallVector<Location> locs(count, func.getLoc());
        OpBuilder b(func);
        for (auto [i, entry] : llvm::enumerate(state)) {
          types.push_back(entry.type);
          SmallVector<NamedAttribute> argAttrs = {
              b.getNamedAttr(NNAttr::kState, b.getStringAttr(entry.name))};
          if (entry.embedded)
            argAttrs.push_back(
                b.getNamedAttr(NNAttr::kEmbedded, entry.embedded));
          attrs.push_back(b.getDictionaryAttr(argAttrs));
          argIndex[entry.name] = i;
        }
        func.insertArguments(positions, types, attrs, locs);
      }
      WalkResult walk = func.walk([&](LoadOp load) {
        auto it = argIndex.find(load.getName());
        if (it == argIndex.end()) {
          load.emitOpError("reads state outside a public function, which "
                           "has no state arguments");
          return WalkResult::interrupt();
        }
        load.replaceAllUsesWith(func.getArgument(it->second));
        load.erase();
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return signalPassFailure();
      if (failed(lowerStores(func, argIndex)))
        return signalPassFailure();
    }
    for (Operation *op : declarations)
      op->erase();
  }
};

} // namespace
