//===- PlanBuffers.cpp - Intermediate buffers in one arena per call -------===//
//
// Implements nn-plan-buffers: the statically sized intermediate buffers of a
// bufferized function get offsets in one arena, reused by buffers whose live
// ranges do not overlap, and the function takes the arena from the
// runtime's per-thread workspace (nn_rt_workspace_acquire) instead of a
// malloc and a free per buffer and call. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "RawMemRef.h"
#include "nn/Conversion/CPU/KernelABI.h"
#include "nn/Conversion/Passes.h"
#include "nn/IR/NNDialect.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nn-plan-buffers"

namespace mlir::nn {
#define GEN_PASS_DEF_PLANBUFFERSPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
namespace abi = mlir::nn::kernel_abi;

namespace {

/// The artifact's bind-time entry point (nn-hoist-state-computations).
constexpr const char *kPrepare = "prepare";
/// Every buffer's alignment and the unit of the arena's offsets (a cache
/// line, and what the micro-kernels' outputs are allocated with).
constexpr int64_t kAlignment = 64;

/// A buffer placed in the arena: its alloc, the deallocs to erase, its
/// size in whole alignment units, and its live range as positions of ops
/// in the function's entry block (both ends included).
struct Buffer {
  memref::AllocOp alloc;
  llvm::SetVector<Operation *> deallocs;
  int64_t bytes = 0;
  int64_t first = 0, last = 0;
  int64_t offset = 0;

  bool overlaps(const Buffer &other) const {
    return first <= other.last && other.first <= last;
  }
};

/// The bytes `alloc` needs (rounded up to whole alignment units), or the
/// reason its type alone keeps it off the arena.
FailureOr<int64_t> bufferBytes(memref::AllocOp alloc, const DataLayout &layout,
                               std::string &why) {
  MemRefType type = alloc.getType();
  if (!type.hasStaticShape()) {
    why = "its size is dynamic";
    return failure();
  }
  if (!type.getLayout().isIdentity()) {
    why = "its layout is not the identity";
    return failure();
  }
  if (type.getMemorySpace()) {
    why = "it is in another memory space";
    return failure();
  }
  if (alloc.getAlignment().value_or(1) > kAlignment) {
    why = "it asks for an alignment above 64 bytes";
    return failure();
  }
  Type element = type.getElementType();
  if (!element.isIntOrIndexOrFloat()) {
    why = "its element type has no fixed size";
    return failure();
  }
  int64_t elementBytes = layout.getTypeSize(element).getFixedValue();
  int64_t bytes = type.getNumElements() * elementBytes;
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

/// Fills `buffer.deallocs` and `buffer.last` by following every value that
/// holds the buffer: views and casts of it (memrefs), and its address
/// (`memref.extract_aligned_pointer_as_index` and everything computed from
/// that, through `llvm.store` to the slot's readers). Returns the reason
/// the buffer must stay a heap allocation, or "" when it may be planned.
std::string followUses(Buffer &buffer, Block &body,
                       const DenseMap<Operation *, int64_t> &position) {
  // (value, whether it is an address rather than a memref of the buffer)
  SmallVector<std::pair<Value, bool>> worklist{{buffer.alloc, false}};
  DenseSet<Value> seen{buffer.alloc};
  auto push = [&](Value v, bool address) {
    if (seen.insert(v).second)
      worklist.emplace_back(v, address);
  };
  buffer.last = buffer.first;
  while (!worklist.empty()) {
    auto [value, address] = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (!address && llvm::isa<memref::DeallocOp>(user)) {
        buffer.deallocs.insert(user);
        continue;
      }
      if (llvm::isa<func::ReturnOp>(user))
        return "it is returned";
      if (user->hasTrait<OpTrait::IsTerminator>())
        return ("it leaves a region through '" +
                user->getName().getStringRef() + "'")
            .str();
      // A function of this module may free what it is given (the
      // deallocation pipeline's helper does); the runtime's may not.
      if (auto call = llvm::dyn_cast<func::CallOp>(user)) {
        auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr());
        if (!callee || !callee.isDeclaration())
          return ("it is passed to '@" + call.getCallee() +
                  "', which may free it")
              .str();
      }
      if (llvm::isa<RegionBranchOpInterface>(user))
        return ("it enters the regions of '" + user->getName().getStringRef() +
                "' as an operand")
            .str();
      Operation *anchor = body.findAncestorOpInBlock(*user);
      if (!anchor)
        return "a use is outside the function's entry block";
      buffer.last = std::max(buffer.last, position.lookup(anchor));

      if (address) {
        // Everything computed from an address may carry it on; a slot it is
        // stored into carries it to the slot's readers.
        for (Value result : user->getResults())
          push(result, true);
        if (auto store = llvm::dyn_cast<LLVM::StoreOp>(user);
            store && store.getValue() == value)
          push(store.getAddr(), true);
        if (auto store = llvm::dyn_cast<memref::StoreOp>(user);
            store && store.getValue() == value)
          push(store.getMemRef(), true);
        continue;
      }
      if (llvm::isa<memref::ExtractAlignedPointerAsIndexOp,
                    UnrealizedConversionCastOp>(user)) {
        for (Value result : user->getResults())
          push(result, true);
        continue;
      }
      // A memref an op makes from this one alone is a view of it (subview,
      // reshapes, casts, extract_strided_metadata's base buffer); one made
      // from several (arith.select) may be another buffer, whose deallocs
      // this pass must not take.
      auto isMemRef = [](Value v) {
        return llvm::isa<MemRefType>(v.getType());
      };
      if (llvm::none_of(user->getResults(), isMemRef))
        continue;
      // memref.reshape reads its shape operand's elements; the result is a
      // view of the source alone (bufferization makes one for every
      // reshape that splits or merges dims in ways expand/collapse cannot).
      if (auto reshape = llvm::dyn_cast<memref::ReshapeOp>(user)) {
        if (use.get() == reshape.getSource())
          push(reshape.getResult(), false);
        continue;
      }
      if (llvm::count_if(user->getOperands(), isMemRef) > 1)
        return ("it is merged with another buffer by '" +
                user->getName().getStringRef() + "'")
            .str();
      for (Value result : user->getResults())
        if (isMemRef(result))
          push(result, false);
    }
  }
  return "";
}

/// Offsets for `buffers` in one arena: largest first, each in the smallest
/// gap between the buffers already placed whose live ranges overlap its own
/// (best fit), or after the last of them. Returns the arena's size.
int64_t assignOffsets(MutableArrayRef<Buffer> buffers) {
  SmallVector<Buffer *> order;
  for (Buffer &buffer : buffers)
    order.push_back(&buffer);
  llvm::stable_sort(order, [](const Buffer *a, const Buffer *b) {
    return a->bytes != b->bytes ? a->bytes > b->bytes : a->first < b->first;
  });
  SmallVector<Buffer *> placed;
  int64_t arena = 0;
  for (Buffer *buffer : order) {
    SmallVector<Buffer *> live;
    for (Buffer *other : placed)
      if (other->overlaps(*buffer))
        live.push_back(other);
    llvm::sort(live, [](const Buffer *a, const Buffer *b) {
      return a->offset < b->offset;
    });
    int64_t cursor = 0, best = -1, bestGap = 0;
    for (Buffer *other : live) {
      int64_t gap = other->offset - cursor;
      if (gap >= buffer->bytes && (best < 0 || gap < bestGap)) {
        best = cursor;
        bestGap = gap;
      }
      cursor = std::max(cursor, other->offset + other->bytes);
    }
    buffer->offset = best >= 0 ? best : cursor;
    arena = std::max(arena, buffer->offset + buffer->bytes);
    placed.push_back(buffer);
  }
  return arena;
}

struct PlanBuffersPass
    : public mlir::nn::impl::PlanBuffersPassBase<PlanBuffersPass> {
  using PlanBuffersPassBase::PlanBuffersPassBase;

  void leaveAlone(memref::AllocOp alloc, StringRef why) {
    ++numLeftAlone;
    LLVM_DEBUG(llvm::dbgs() << "left alone (" << why << "): " << alloc << "\n");
    if (emitRemarks)
      alloc.emitRemark() << "stays a heap allocation: " << why;
  }

  /// Plans the buffers of `func`; returns them with their offsets and the
  /// arena's size (0 when none could be planned).
  int64_t plan(func::FuncOp func, SmallVectorImpl<Buffer> &buffers) {
    SmallVector<memref::AllocOp> allocs;
    func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    if (allocs.empty())
      return 0;
    if (!func.getBody().hasOneBlock()) {
      for (memref::AllocOp alloc : allocs)
        leaveAlone(alloc, "its function has more than one block");
      return 0;
    }
    // The artifact's @prepare runs once per binding, so it gains nothing
    // from an arena; one would stay cached in the binding thread's workspace
    // for the thread's life, holding prepare's temporaries (a batch-norm-
    // folded weight before it is packed) after prepare has returned.
    if (func.getSymName() == kPrepare) {
      for (memref::AllocOp alloc : allocs)
        leaveAlone(alloc, "@prepare runs once per binding; its temporaries "
                          "are freed when it returns");
      return 0;
    }
    Block &body = func.getBody().front();
    DenseMap<Operation *, int64_t> position;
    for (auto [i, op] : llvm::enumerate(body))
      position[&op] = i;
    DataLayout layout = DataLayout::closest(func);
    for (memref::AllocOp alloc : allocs) {
      std::string why;
      if (alloc->getBlock() != &body) {
        leaveAlone(alloc, ("it is allocated inside '" +
                           alloc->getParentOp()->getName().getStringRef() +
                           "' (a buffer per iteration)")
                              .str());
        continue;
      }
      FailureOr<int64_t> bytes = bufferBytes(alloc, layout, why);
      if (failed(bytes)) {
        leaveAlone(alloc, why);
        continue;
      }
      Buffer buffer;
      buffer.alloc = alloc;
      buffer.bytes = *bytes;
      buffer.first = position.lookup(alloc);
      why = followUses(buffer, body, position);
      if (!why.empty()) {
        leaveAlone(alloc, why);
        continue;
      }
      buffers.push_back(std::move(buffer));
    }
    return assignOffsets(buffers);
  }

  /// Replaces the planned allocs of `func` by memrefs at their offsets in
  /// an arena of `arena` bytes acquired at entry and released before every
  /// return. Each is built from its own address (arena + offset) rather
  /// than as a memref.view of an i8 arena: expand-strided-metadata (MLIR 19)
  /// folds memref.extract_aligned_pointer_as_index through any view-like op
  /// to the op's source, which is wrong for memref.view (it moves the
  /// aligned pointer), so every kernel operand taken from a view would point
  /// at the arena's first byte.
  void rewrite(func::FuncOp func, MutableArrayRef<Buffer> buffers,
               int64_t arena, func::FuncOp acquire, func::FuncOp release) {
    Location loc = func.getLoc();
    Block &body = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&body);
    Value bytes = b.create<arith::ConstantIntOp>(loc, arena, 64);
    Value block = b.create<func::CallOp>(loc, acquire, bytes).getResult(0);
    Type ptr = block.getType();
    for (Buffer &buffer : buffers) {
      Location at = buffer.alloc.getLoc();
      b.setInsertionPoint(buffer.alloc);
      Value address = block;
      if (buffer.offset != 0)
        address =
            b.create<LLVM::GEPOp>(at, ptr, b.getI8Type(), block,
                                  ValueRange{b.create<LLVM::ConstantOp>(
                                      at, b.getI64Type(), buffer.offset)});
      Value view = mlir::nn::buildMemRefFromPointer(
          b, at, buffer.alloc.getType(), address);
      if (emitRemarks)
        buffer.alloc.emitRemark() << "placed at byte " << buffer.offset
                                  << " of a " << arena << "-byte arena";
      LLVM_DEBUG(llvm::dbgs()
                 << "planned at " << buffer.offset << " (live " << buffer.first
                 << ".." << buffer.last << "): " << buffer.alloc << "\n");
      for (Operation *dealloc : buffer.deallocs)
        dealloc->erase();
      buffer.alloc.replaceAllUsesWith(view);
      buffer.alloc.erase();
    }
    func.walk([&](func::ReturnOp ret) {
      b.setInsertionPoint(ret);
      b.create<func::CallOp>(ret.getLoc(), release, block);
    });
    func->setAttr(mlir::nn::NNAttr::kWorkspaceBytes,
                  b.getI64IntegerAttr(arena));
    if (emitRemarks) {
      int64_t unshared = 0;
      for (const Buffer &buffer : buffers)
        unshared += buffer.bytes;
      func.emitRemark() << "planned " << buffers.size() << " buffer(s), "
                        << unshared << " bytes in all, into a " << arena
                        << "-byte arena";
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp acquire, release;
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isDeclaration())
        continue;
      SmallVector<Buffer> buffers;
      int64_t arena = plan(func, buffers);
      if (buffers.empty())
        continue;
      if (!acquire) {
        auto declared = abi::declare(
            module, abi::Function::nn_rt_workspace_acquire, module.getLoc());
        if (failed(declared))
          return signalPassFailure();
        acquire = *declared;
        declared = abi::declare(module, abi::Function::nn_rt_workspace_release,
                                module.getLoc());
        if (failed(declared))
          return signalPassFailure();
        release = *declared;
      }
      numPlanned += buffers.size();
      for (const Buffer &buffer : buffers)
        plannedBytes += buffer.bytes;
      arenaBytes += arena;
      rewrite(func, buffers, arena, acquire, release);
    }
  }
};

} // namespace
