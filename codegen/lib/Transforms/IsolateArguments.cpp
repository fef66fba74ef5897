//===- IsolateArguments.cpp - Arguments stay the caller's -----------------===//
//
// Implements nn-isolate-arguments (see Passes.td): before bufferization,
// every function argument not declared writable becomes read-only, and every
// result gets a tensor of its own, so bufferization neither writes into a
// caller's input nor returns one of the caller's buffers.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/Passes.h"

#include "llvm/ADT/SmallPtrSet.h"

#define DEBUG_TYPE "nn-isolate-arguments"

namespace mlir::nn {
#define GEN_PASS_DEF_ISOLATEARGUMENTSPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;

namespace {

struct IsolateArgumentsPass
    : public mlir::nn::impl::IsolateArgumentsPassBase<IsolateArgumentsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(refuseMemRefResults(func)))
      return signalPassFailure();
    makeArgumentsReadOnly(func);
    giveEveryResultItsOwnTensor(func);
  }

  /// The lowering returns tensors; bufferization makes them out-parameters.
  /// A memref result (hand-written IR) is refused here: an argument
  /// returned as it came in would crash MLIR 19's
  /// buffer-results-to-out-params, and the copy below only protects tensors.
  static LogicalResult refuseMemRefResults(func::FuncOp func) {
    for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
      if (llvm::isa<BaseMemRefType>(type))
        return func.emitError()
               << "result " << i << " of @" << func.getSymName() << " is "
               << type
               << ": the CPU lowering returns tensors (bufferization makes "
                  "them out-parameters)";
    return success();
  }

  /// One-shot bufferization takes an unannotated tensor argument as
  /// writable, and would compute an op whose destination is an argument in
  /// the caller's buffer. State that forward updates is already declared
  /// writable (nn-lower-state-to-arguments); everything else is an input.
  static void makeArgumentsReadOnly(func::FuncOp func) {
    auto readOnly = BoolAttr::get(func.getContext(), false);
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (llvm::isa<TensorType>(func.getArgument(i).getType()) &&
          !func.getArgAttr(
              i, bufferization::BufferizationDialect::kWritableAttrName))
        func.setArgAttr(i,
                        bufferization::BufferizationDialect::kWritableAttrName,
                        readOnly);
  }

  /// A returned argument, or a value returned twice, is copied
  /// (`bufferization.alloc_tensor copy(...)`): each result becomes a
  /// separate caller-owned output. Returning an input as it is (Identity, a
  /// transpose of a transpose, an op computed in place into an argument)
  /// would otherwise alias input and output, and crashes MLIR 19's
  /// buffer-results-to-out-params{hoist-static-allocs}. The copies are
  /// made before the state writes that end the block
  /// (nn_kernel.write_state): a returned state argument is its value at
  /// the call, not the one the call writes.
  static void giveEveryResultItsOwnTensor(func::FuncOp func) {
    func.walk([](func::ReturnOp ret) {
      Operation *before = ret;
      while (Operation *prev = before->getPrevNode()) {
        if (!llvm::isa<mlir::nn::kernel::WriteStateOp>(prev))
          break;
        before = prev;
      }
      OpBuilder b(before);
      llvm::SmallPtrSet<Value, 4> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
        if (!type || (seen.insert(v).second && !llvm::isa<BlockArgument>(v)))
          continue;
        operand.set(b.create<bufferization::AllocTensorOp>(
            ret.getLoc(), type, ValueRange(), /*copy=*/v, /*sizeHint=*/Value(),
            /*memorySpace=*/Attribute()));
      }
    });
  }
};

} // namespace
