//===- RawMemRef.h - A memref over an address from outside MLIR -*- C++ -*-===//
//
// Passes that run after bufferization and receive buffers as raw addresses
// (a pointer from the runtime, words read from a parallel loop's context)
// rebuild the memref's descriptor in the LLVM dialect and cast it to the
// memref type; finalize-memref-to-llvm folds the cast away. Shared by
// nn-outline-parallel-loops and nn-plan-buffers.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CODEGEN_CPU_RAWMEMREF_H
#define NN_CODEGEN_CPU_RAWMEMREF_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::nn {

/// A value of `type` (default memory space) whose allocated and aligned
/// pointers are `base` (an !llvm.ptr), with `offset`, `sizes` and `strides`
/// (i64 values, one size and one stride per dimension).
Value buildMemRefFromPointer(OpBuilder &b, Location loc, MemRefType type,
                             Value base, Value offset, ValueRange sizes,
                             ValueRange strides);

/// A contiguous memref of static `type` (identity layout) at `base`.
Value buildMemRefFromPointer(OpBuilder &b, Location loc, MemRefType type,
                             Value base);

} // namespace mlir::nn

#endif // NN_CODEGEN_CPU_RAWMEMREF_H
