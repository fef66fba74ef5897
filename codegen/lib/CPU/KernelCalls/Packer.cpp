//===- Packer.cpp - Weights packed once, in the model's context -----------===//
//
// Part of convert-nn-to-kernel (KernelCalls.h): the Packer class.
//
//===----------------------------------------------------------------------===//

#include "KernelCalls.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "convert-nn-to-kernel"

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::kernel_calls;
namespace abi = mlir::nn::kernel_abi;

namespace {

/// The `nn.context` argument of `func`, or null.
Value contextArgument(FunctionOpInterface func) {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, NNAttr::kContext))
      return func.getArgument(i);
  return nullptr;
}

/// The (argument, dense slot) pairs of `func`'s `nn.context_slot`
/// arguments (init() checked them).
SmallVector<std::pair<unsigned, int64_t>> slotArguments(func::FuncOp func) {
  SmallVector<std::pair<unsigned, int64_t>> args;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (auto slot = func.getArgAttrOfType<IntegerAttr>(i, NNAttr::kContextSlot))
      args.emplace_back(i, slot.getInt());
  return args;
}

} // namespace

LogicalResult Packer::init(ModuleOp module) {
  prepare = module.lookupSymbol<func::FuncOp>("prepare");
  if (!prepare)
    return success();
  if (!prepare.getBody().hasOneBlock())
    return prepare.emitError()
           << "@prepare has " << prepare.getBody().getBlocks().size()
           << " blocks; packing appends to the one block "
              "nn-hoist-state-computations makes";
  denseSlots = prepare.getNumResults();
  auto slots = module->getAttrOfType<IntegerAttr>(NNAttr::kContextSlots);
  if ((slots ? slots.getInt() : 0) != denseSlots)
    return module.emitError()
           << NNAttr::kContextSlots << " is " << (slots ? slots.getInt() : 0)
           << " but @prepare has " << denseSlots
           << " results: the context has slots that are not @prepare's "
              "(packed already?)";
  auto bytes = module->getAttrOfType<DenseI64ArrayAttr>(NNAttr::kContextBytes);
  int64_t sizes = bytes ? bytes.size() : 0;
  if (sizes != denseSlots)
    return module.emitError()
           << NNAttr::kContextBytes << " has " << sizes << " sizes for the "
           << denseSlots << " results of @prepare";
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func == prepare)
      continue;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      Attribute attr = func.getArgAttr(i, NNAttr::kContextSlot);
      if (!attr)
        continue;
      auto slot = llvm::dyn_cast<IntegerAttr>(attr);
      if (!slot || slot.getInt() < 0 || slot.getInt() >= denseSlots)
        return func.emitError()
               << "argument " << i << " of @" << func.getSymName() << " has "
               << NNAttr::kContextSlot << " = " << attr
               << ", not the number of one of the " << denseSlots
               << " results of @prepare";
      Type type = prepare.getResultTypes()[slot.getInt()];
      if (func.getArgumentTypes()[i] != type)
        return func.emitError()
               << "argument " << i << " of @" << func.getSymName() << " is "
               << func.getArgumentTypes()[i] << " but reads context slot "
               << slot.getInt() << ", which @prepare returns as " << type;
      if (func.isDeclaration())
        return func.emitError() << "@" << func.getSymName()
                                << " reads context slots but has no body";
    }
  }
  auto contextType = kernel::ContextType::get(module.getContext());
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isDeclaration() && !contextArgument(func))
      func.insertArgument(
          func.getNumArguments(), contextType,
          DictionaryAttr::get(
              module.getContext(),
              {NamedAttribute(
                  StringAttr::get(module.getContext(), NNAttr::kContext),
                  UnitAttr::get(module.getContext()))}),
          func.getLoc());
  return success();
}

Value Packer::sourceInPrepare(Value operand) {
  auto arg = llvm::dyn_cast_or_null<BlockArgument>(operand);
  if (!prepare || !arg)
    return nullptr;
  auto func = llvm::dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (!func || func == prepare || !func.isPublic())
    return nullptr;
  unsigned index = arg.getArgNumber();
  // init() checked the slot.
  if (auto slot =
          func.getArgAttrOfType<IntegerAttr>(index, NNAttr::kContextSlot))
    return prepare.getBody().front().getTerminator()->getOperand(slot.getInt());
  auto name = func.getArgAttrOfType<StringAttr>(index, NNAttr::kState);
  // State forward writes (declared writable) changes after bind.
  auto writable =
      func.getArgAttrOfType<BoolAttr>(index, "bufferization.writable");
  if (!name || (writable && writable.getValue()))
    return nullptr;
  for (unsigned i = 0, e = prepare.getNumArguments(); i < e; ++i)
    if (prepare.getArgAttrOfType<StringAttr>(i, NNAttr::kState) == name)
      return prepare.getArgument(i);
  return nullptr;
}

Value Packer::packed(PatternRewriter &rewriter, Location loc, Value operand,
                     PackKind kind, StringRef layout, PackFn pack) {
  Value source = sourceInPrepare(operand);
  if (!source)
    return nullptr;
  auto func = llvm::cast<func::FuncOp>(
      llvm::cast<BlockArgument>(operand).getOwner()->getParentOp());
  Value context = contextArgument(func);
  Value prepareContext = contextArgument(prepare);
  if (!context || !prepareContext)
    return nullptr;
  auto key = std::make_tuple(source.getAsOpaquePointer(),
                             static_cast<int>(kind), layout.str());
  auto [it, inserted] = packedSlots.try_emplace(key, packedSlots.size());
  if (inserted) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(prepare.getBody().front().getTerminator());
    pack(rewriter, source, prepareContext, it->second);
  }
  auto type = kernel::PackedType::get(
      rewriter.getContext(),
      llvm::cast<ShapedType>(operand.getType()).getShape());
  return rewriter.create<kernel::PackedOp>(loc, type, context, it->second);
}

void Packer::finish(ModuleOp module) {
  if (!prepare)
    return;
  int64_t firstPacked = dropUnreadDenseSlots(module);
  Builder b(module.getContext());
  auto number = [&](Operation *op) {
    auto slot = op->getAttrOfType<IntegerAttr>("slot");
    op->setAttr("slot", b.getI64IntegerAttr(firstPacked + slot.getInt()));
  };
  module.walk([&](Operation *op) {
    if (llvm::isa<kernel::PackedOp, kernel::PackGemmBOp,
                  kernel::PackConv2dWeightOp>(op))
      number(op);
  });
  module->setAttr(NNAttr::kContextSlots,
                  b.getI64IntegerAttr(
                      firstPacked + static_cast<int64_t>(packedSlots.size())));
  for (auto func : module.getOps<func::FuncOp>())
    if (func != prepare)
      if (Value context = contextArgument(func); context && context.use_empty())
        func.eraseArgument(llvm::cast<BlockArgument>(context).getArgNumber());
}

/// Removes the dense slots (@prepare's results, the `nn.context_slot`
/// arguments) whose argument no function reads now that the kernels read
/// the packed copy instead: a batch-norm-folded weight read only by a
/// packed convolution. @prepare still computes the value for its packing,
/// but as a temporary freed before it returns, not as a context buffer
/// held with the packed one as long as the model lives. The slots that
/// stay keep their order; returns how many they are.
int64_t Packer::dropUnreadDenseSlots(ModuleOp module) {
  // init() refused declarations with slot arguments.
  SmallVector<func::FuncOp> readers;
  for (auto func : module.getOps<func::FuncOp>())
    if (func != prepare && !func.isDeclaration())
      readers.push_back(func);
  llvm::BitVector unread(denseSlots, true);
  for (func::FuncOp func : readers)
    for (auto [arg, slot] : slotArguments(func))
      if (!func.getArgument(arg).use_empty())
        unread.reset(slot);
  SmallVector<int64_t> renumbered(denseSlots, -1);
  int64_t kept = 0;
  for (int64_t slot = 0; slot < denseSlots; ++slot)
    if (!unread[slot])
      renumbered[slot] = kept++;
  Builder b(module.getContext());
  for (func::FuncOp func : readers) {
    llvm::BitVector erase(func.getNumArguments());
    for (auto [arg, slot] : slotArguments(func)) {
      if (unread[slot])
        erase.set(arg);
      else
        func.setArgAttr(arg, NNAttr::kContextSlot,
                        b.getI64IntegerAttr(renumbered[slot]));
    }
    func.eraseArguments(erase);
  }
  SmallVector<int64_t> bytes;
  if (auto sizes =
          module->getAttrOfType<DenseI64ArrayAttr>(NNAttr::kContextBytes))
    for (auto [slot, size] : llvm::enumerate(sizes.asArrayRef()))
      if (!unread[slot])
        bytes.push_back(size);
  module->setAttr(NNAttr::kContextBytes, b.getDenseI64ArrayAttr(bytes));
  prepare.getBody().front().getTerminator()->eraseOperands(unread);
  prepare.eraseResults(unread);
  LLVM_DEBUG(llvm::dbgs() << "convert-nn-to-kernel: " << unread.count()
                          << " dense context slots only fed a packing\n");
  return kept;
}
