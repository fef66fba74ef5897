//===- FlattenEmptyArguments.cpp - Zero-size arguments the ABI converts ---===//
//
// Implements nn-flatten-empty-arguments (see Passes.td): a zero-size memref
// argument of an entry point becomes 1-D, viewed with its own shape again
// at the entry, so that the bare-pointer calling convention converts the
// function.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::nn {
#define GEN_PASS_DEF_FLATTENEMPTYARGUMENTSPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;

namespace {

/// Whether `type` is a statically shaped, identity-layout memref with no
/// elements and a zero past its first dimension (what the bare-pointer
/// convention refuses).
bool needsFlattening(Type type) {
  auto memref = llvm::dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || !memref.getLayout().isIdentity() ||
      memref.getRank() < 2 || memref.getNumElements() != 0)
    return false;
  return llvm::is_contained(memref.getShape().drop_front(), 0);
}

struct FlattenEmptyArgumentsPass
    : public mlir::nn::impl::FlattenEmptyArgumentsPassBase<
          FlattenEmptyArgumentsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isDeclaration() ||
          !SymbolTable::symbolKnownUseEmpty(func, module))
        continue;
      Block &entry = func.getBody().front();
      OpBuilder b(&entry, entry.begin());
      SmallVector<Type> types(func.getArgumentTypes());
      for (BlockArgument arg : entry.getArguments()) {
        if (!needsFlattening(arg.getType()))
          continue;
        auto type = llvm::cast<MemRefType>(arg.getType());
        // Row-major strides, written out: MLIR reports a zero dimension's
        // neighbours as dynamic.
        SmallVector<int64_t> strides(type.getRank(), 1);
        for (int64_t d = type.getRank() - 2; d >= 0; --d)
          strides[d] = strides[d + 1] * type.getDimSize(d + 1);
        auto flat = MemRefType::get({0}, type.getElementType(), nullptr,
                                    type.getMemorySpace());
        arg.setType(flat);
        types[arg.getArgNumber()] = flat;
        auto view = b.create<memref::ReinterpretCastOp>(
            arg.getLoc(), type, arg, /*offset=*/0, type.getShape(), strides);
        arg.replaceAllUsesExcept(view, view);
      }
      func.setFunctionType(
          FunctionType::get(func.getContext(), types, func.getResultTypes()));
    }
  }
};

} // namespace
