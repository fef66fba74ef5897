//===- UseNontemporalStores.cpp - Streaming stores for huge outputs -------===//
//
// Implements nn-use-nontemporal-stores: vector writes into buffers larger
// than the last-level cache become non-temporal stores when their address
// is aligned, so the cache lines they fill are not first read from memory.
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/Passes.h"

#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nn-use-nontemporal-stores"

namespace mlir::nn {
#define GEN_PASS_DEF_USENONTEMPORALSTORESPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;

namespace {

/// The buffer `view` is a view of (through subviews, casts and reshapes),
/// or `view` itself.
Value rootBuffer(Value view) {
  while (auto viewLike = view.getDefiningOp<ViewLikeOpInterface>())
    view = viewLike.getViewSource();
  return view;
}

/// The size in bytes of a statically shaped memref of whole-byte elements,
/// or nothing.
std::optional<int64_t> staticBytes(Type type) {
  auto memref = llvm::dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() ||
      !memref.getElementType().isIntOrFloat() ||
      memref.getElementTypeBitWidth() % 8 != 0)
    return std::nullopt;
  return memref.getNumElements() * (memref.getElementTypeBitWidth() / 8);
}

/// The op that contains `op` (or is `op`) directly in the body of the
/// closest enclosing scf.forall or function: what a fence must follow so
/// that it runs once per thread's tile, after every store inside.
Operation *outermostInTile(Operation *op) {
  while (!llvm::isa<scf::ForallOp, FunctionOpInterface>(op->getParentOp()))
    op = op->getParentOp();
  return op;
}

struct UseNontemporalStoresPass
    : public mlir::nn::impl::UseNontemporalStoresPassBase<
          UseNontemporalStoresPass> {
  using UseNontemporalStoresPassBase::UseNontemporalStoresPassBase;

  /// Whether `write` stores a whole, unmasked, contiguous vector of a
  /// multiple of `alignment` bytes into a buffer of at least `minBytes`.
  bool isCandidate(vector::TransferWriteOp write) {
    auto memref = llvm::dyn_cast<MemRefType>(write.getSource().getType());
    VectorType vector = write.getVectorType();
    if (!memref || memref.getMemorySpace() || vector.getRank() != 1 ||
        vector.isScalable() || write.getMask() || write.hasOutOfBoundsDim() ||
        !write.getPermutationMap().isMinorIdentity())
      return false;
    Type element = vector.getElementType();
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
      return false;
    int64_t bytes =
        vector.getNumElements() * element.getIntOrFloatBitWidth() / 8;
    if (bytes % alignment != 0)
      return false;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(getStridesAndOffset(memref, strides, offset)) ||
        strides.empty() || strides.back() != 1)
      return false;
    std::optional<int64_t> rootBytes =
        staticBytes(rootBuffer(write.getSource()).getType());
    return rootBytes && *rootBytes >= minBytes;
  }

  /// Replaces `write` by `if (aligned address) nontemporal store else write`.
  void rewrite(OpBuilder &b, vector::TransferWriteOp write) {
    Location loc = write.getLoc();
    b.setInsertionPoint(write);
    Value dest = write.getSource();
    auto memref = llvm::cast<MemRefType>(dest.getType());
    auto index = [&](int64_t v) -> Value {
      return b.create<arith::ConstantIndexOp>(loc, v);
    };
    // The element written first: offset + sum(index * stride).
    auto meta = b.create<memref::ExtractStridedMetadataOp>(loc, dest);
    Value element = meta.getOffset();
    for (auto [i, stride] : llvm::zip(write.getIndices(), meta.getStrides()))
      element = b.create<arith::AddIOp>(
          loc, element, b.create<arith::MulIOp>(loc, i, stride));
    int64_t elementBytes = memref.getElementTypeBitWidth() / 8;
    Value address = b.create<arith::AddIOp>(
        loc, b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, dest),
        b.create<arith::MulIOp>(loc, element, index(elementBytes)));
    Value low = b.create<arith::AndIOp>(loc, address, index(alignment - 1));
    Value aligned =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, low, index(0));
    auto branch = b.create<scf::IfOp>(loc, aligned, /*withElseRegion=*/true);
    OpBuilder then = branch.getThenBodyBuilder();
    Value word =
        then.create<arith::IndexCastOp>(loc, then.getI64Type(), address);
    Value ptr = then.create<LLVM::IntToPtrOp>(
        loc, LLVM::LLVMPointerType::get(b.getContext()), word);
    then.create<LLVM::StoreOp>(loc, write.getVector(), ptr, alignment,
                               /*isVolatile=*/false, /*isNonTemporal=*/true);
    write->moveBefore(branch.elseBlock()->getTerminator());
  }

  void runOnOperation() override {
    if (minBytes <= 0)
      return;
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment)) {
      getOperation().emitError()
          << "nn-use-nontemporal-stores: alignment must be a power of two, "
             "got "
          << int64_t(alignment);
      return signalPassFailure();
    }
    SmallVector<vector::TransferWriteOp> writes;
    getOperation().walk([&](vector::TransferWriteOp write) {
      if (isCandidate(write))
        writes.push_back(write);
    });
    OpBuilder b(&getContext());
    llvm::SetVector<Operation *> fenceAfter;
    for (vector::TransferWriteOp write : writes) {
      rewrite(b, write);
      fenceAfter.insert(outermostInTile(write->getParentOp()));
    }
    for (Operation *op : fenceAfter) {
      b.setInsertionPointAfter(op);
      b.create<LLVM::FenceOp>(op->getLoc(), LLVM::AtomicOrdering::seq_cst);
    }
    LLVM_DEBUG(llvm::dbgs() << writes.size() << " non-temporal stores, "
                            << fenceAfter.size() << " fences\n");
  }
};

} // namespace
