//===- OutlineParallelLoops.cpp - scf.forall onto the runtime's pool ------===//
//
// Implements nn-outline-parallel-loops: a one-dimensional scf.forall on
// buffers becomes a call to nn_rt_parallel_for with its body outlined into
// a function of (ctx, begin, end). The runtime splits [0, n) into one
// contiguous chunk per thread. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "RawMemRef.h"
#include "nn/Conversion/CPU/KernelABI.h"
#include "nn/Conversion/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nn-outline-parallel-loops"

namespace mlir::nn {
#define GEN_PASS_DEF_OUTLINEPARALLELLOOPSPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
namespace abi = mlir::nn::kernel_abi;

namespace {

/// Whether `value` can travel through the context: a memref in the
/// default memory space, or a scalar of at most 64 bits.
bool isPackable(Value value) {
  Type type = value.getType();
  if (auto memref = llvm::dyn_cast<MemRefType>(type))
    return !memref.getMemorySpace() &&
           memref.getElementType().isIntOrIndexOrFloat();
  if (type.isIndex())
    return true;
  return type.isIntOrFloat() && type.getIntOrFloatBitWidth() <= 64;
}

/// The scalar `value` (index, integer or float) as an i64 of the same bits.
Value toWord(OpBuilder &b, Location loc, Value value) {
  Type i64 = b.getI64Type();
  Type type = value.getType();
  if (type.isIndex())
    return b.create<arith::IndexCastOp>(loc, i64, value);
  if (auto f = llvm::dyn_cast<FloatType>(type))
    value =
        b.create<arith::BitcastOp>(loc, b.getIntegerType(f.getWidth()), value);
  if (value.getType() != i64)
    value = b.create<arith::ExtUIOp>(loc, i64, value);
  return value;
}

/// The inverse of toWord.
Value fromWord(OpBuilder &b, Location loc, Value word, Type type) {
  if (type.isIndex())
    return b.create<arith::IndexCastOp>(loc, type, word);
  unsigned width = type.getIntOrFloatBitWidth();
  if (width != 64)
    word = b.create<arith::TruncIOp>(loc, b.getIntegerType(width), word);
  if (llvm::isa<FloatType>(type))
    word = b.create<arith::BitcastOp>(loc, type, word);
  return word;
}

/// How many bytes of scratch buffers one loop may hoist onto the outlined
/// function's stack, in all (pool threads run with the default 8 MiB stack).
constexpr int64_t kMaxScratchBytes = 64 * 1024;

/// Moves the scratch buffers of `loop`'s body (memref.alloc ops directly in
/// the body, statically shaped, freed in the same iteration and not
/// otherwise leaving it; in body order while they fit in kMaxScratchBytes) to
/// memref.alloca ops at `fb`, the outlined function's entry, and maps them. A
/// fresh allocation's contents are undefined, so one buffer serves every
/// iteration a thread runs in turn: the allocator is no longer called per tile,
/// and the stack does not grow with the iteration count. Returns the allocs and
/// deallocs the body clone must skip.
DenseSet<Operation *> hoistScratchBuffers(scf::ForallOp loop, OpBuilder &fb,
                                          IRMapping &map) {
  DenseSet<Operation *> hoisted;
  int64_t budget = kMaxScratchBytes;
  Block *body = loop.getBody();
  for (auto alloc : body->getOps<memref::AllocOp>()) {
    MemRefType type = alloc.getType();
    Type element = type.getElementType();
    if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
        type.getMemorySpace() || !element.isIntOrFloat())
      continue;
    int64_t bytes = type.getNumElements() *
                    llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
    if (bytes > budget)
      continue;
    SmallVector<Operation *> deallocs;
    bool local = true;
    for (Operation *user : alloc->getUsers()) {
      if (llvm::isa<memref::DeallocOp>(user)) {
        if (user->getBlock() != body)
          local = false;
        deallocs.push_back(user);
      } else if (llvm::isa<RegionBranchTerminatorOpInterface>(user) ||
                 llvm::isa<func::ReturnOp>(user)) {
        local = false; // leaves the iteration
      }
    }
    if (!local || deallocs.empty())
      continue;
    auto alloca = fb.create<memref::AllocaOp>(alloc.getLoc(), type,
                                              alloc.getAlignmentAttr());
    map.map(alloc.getResult(), alloca.getResult());
    budget -= bytes;
    hoisted.insert(alloc);
    hoisted.insert(deallocs.begin(), deallocs.end());
  }
  return hoisted;
}

struct OutlineParallelLoopsPass
    : public mlir::nn::impl::OutlineParallelLoopsPassBase<
          OutlineParallelLoopsPass> {
  /// Outlines `loop` (of function `parent`) into a new function and calls
  /// nn_rt_parallel_for in its place. Leaves `loop` alone when it uses a
  /// value that cannot travel through the context.
  void outline(scf::ForallOp loop, func::FuncOp parent, SymbolTable &symbols,
               func::FuncOp parallelFor) {
    MLIRContext *ctx = &getContext();
    Location loc = loop.getLoc();
    Type i64 = IntegerType::get(ctx, 64);
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    OpBuilder b(loop);

    // Bounds as values: their uses are captured like any other.
    Value lb =
        getValueOrCreateConstantIndexOp(b, loc, loop.getMixedLowerBound()[0]);
    Value ub =
        getValueOrCreateConstantIndexOp(b, loc, loop.getMixedUpperBound()[0]);
    Value step =
        getValueOrCreateConstantIndexOp(b, loc, loop.getMixedStep()[0]);
    llvm::SetVector<Value> used;
    getUsedValuesDefinedAbove(loop.getRegion(), used);
    used.insert(lb);
    used.insert(step);
    SmallVector<Value> constants, packed;
    for (Value v : used) {
      if (matchPattern(v, m_Constant()))
        constants.push_back(v);
      else if (isPackable(v))
        packed.push_back(v);
      else {
        LLVM_DEBUG(llvm::dbgs() << "left alone, uses " << v << "\n");
        return;
      }
    }

    // The outlined function: void fn(ptr ctx, i64 begin, i64 end).
    auto fnType = FunctionType::get(ctx, {ptr, i64, i64}, {});
    OpBuilder mb(parent);
    auto fn = mb.create<func::FuncOp>(
        loc, (parent.getSymName() + "_parallel").str(), fnType);
    fn.setPrivate();
    // Not exported from the compiled object: convert-func-to-llvm gives a
    // private function external linkage unless "llvm.linkage" says otherwise.
    fn->setAttr("llvm.linkage",
                LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
    symbols.insert(fn); // renames on collision
    Block *entry = fn.addEntryBlock();
    OpBuilder fb = OpBuilder::atBlockEnd(entry);
    IRMapping map;
    for (Value c : constants)
      map.map(c, fb.clone(*c.getDefiningOp())->getResult(0));
    Value ctxArg = entry->getArgument(0);
    int32_t word = 0; // the next context word to read
    auto load = [&]() -> Value {
      Value at = fb.create<LLVM::GEPOp>(loc, ptr, i64, ctxArg,
                                        ArrayRef<LLVM::GEPArg>{word++});
      return fb.create<LLVM::LoadOp>(loc, i64, at);
    };
    for (Value v : packed) {
      auto memref = llvm::dyn_cast<MemRefType>(v.getType());
      if (!memref) {
        map.map(v, fromWord(fb, loc, load(), v.getType()));
        continue;
      }
      // Rebuild the descriptor from the words in the order the call site
      // stores them: aligned pointer, offset, sizes, strides.
      Value base = fb.create<LLVM::IntToPtrOp>(loc, ptr, load());
      Value offset = load();
      SmallVector<Value> sizes, strides;
      for (int64_t d = 0; d < memref.getRank(); ++d)
        sizes.push_back(load());
      for (int64_t d = 0; d < memref.getRank(); ++d)
        strides.push_back(load());
      map.map(v, mlir::nn::buildMemRefFromPointer(fb, loc, memref, base, offset,
                                                  sizes, strides));
    }
    // The iteration's own scratch buffers (a row tile's statistics) are
    // allocated once per call on this function's stack, not per iteration.
    DenseSet<Operation *> hoisted = hoistScratchBuffers(loop, fb, map);
    // for k in [begin, end): iv = k * step + lb; body.
    Value begin = fb.create<arith::IndexCastOp>(loc, fb.getIndexType(),
                                                entry->getArgument(1));
    Value end = fb.create<arith::IndexCastOp>(loc, fb.getIndexType(),
                                              entry->getArgument(2));
    Value one = fb.create<arith::ConstantIndexOp>(loc, 1);
    auto inner = fb.create<scf::ForOp>(loc, begin, end, one);
    fb.create<func::ReturnOp>(loc);
    fb.setInsertionPointToStart(inner.getBody());
    Value iv = fb.createOrFold<arith::AddIOp>(
        loc,
        fb.createOrFold<arith::MulIOp>(loc, inner.getInductionVar(),
                                       map.lookup(step)),
        map.lookup(lb));
    map.map(loop.getInductionVars()[0], iv);
    for (Operation &op : loop.getBody()->without_terminator())
      if (!hoisted.contains(&op))
        fb.clone(op, map);

    // The call site: pack the context, call the pool.
    Value ctxBuf = b.create<memref::AllocaOp>(
        loc, MemRefType::get({std::max<int64_t>(word, 1)}, i64));
    int64_t slot = 0;
    auto store = [&](Value w) {
      Value index = b.create<arith::ConstantIndexOp>(loc, slot++);
      b.create<memref::StoreOp>(loc, w, ctxBuf, index);
    };
    for (Value v : packed) {
      if (!llvm::isa<MemRefType>(v.getType())) {
        store(toWord(b, loc, v));
        continue;
      }
      auto meta = b.create<memref::ExtractStridedMetadataOp>(loc, v);
      store(toWord(b, loc,
                   b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, v)));
      store(toWord(b, loc, meta.getOffset()));
      for (Value s : meta.getSizes())
        store(toWord(b, loc, s));
      for (Value s : meta.getStrides())
        store(toWord(b, loc, s));
    }
    Value ctxPtr = b.create<LLVM::IntToPtrOp>(
        loc, ptr,
        toWord(b, loc,
               b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, ctxBuf)));
    // n = ceil((ub - lb) / step); the loop's step is positive.
    Value n = b.createOrFold<arith::CeilDivSIOp>(
        loc, b.createOrFold<arith::SubIOp>(loc, ub, lb), step);
    Value fnPtr = b.create<func::ConstantOp>(loc, fnType, fn.getSymName());
    b.create<func::CallOp>(loc, parallelFor,
                           ValueRange{toWord(b, loc, n), fnPtr, ctxPtr});
    loop.erase();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<std::pair<scf::ForallOp, func::FuncOp>> loops;
    module.walk([&](scf::ForallOp loop) {
      // Outermost loops only: a nested one runs inside its parent's chunk.
      if (loop->getParentOfType<scf::ForallOp>() || loop.getRank() != 1 ||
          loop.getNumResults() != 0 || loop.getMapping())
        return;
      if (auto parent = loop->getParentOfType<func::FuncOp>())
        loops.emplace_back(loop, parent);
    });
    if (loops.empty())
      return;
    auto parallelFor = abi::declare(module, abi::Function::nn_rt_parallel_for,
                                    module.getLoc());
    if (failed(parallelFor))
      return signalPassFailure();
    for (auto [loop, parent] : loops)
      outline(loop, parent, symbols, *parallelFor);
  }
};

} // namespace
