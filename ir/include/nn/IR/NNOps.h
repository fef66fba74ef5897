//===- NNOps.h - nn dialect operations --------------------------*- C++ -*-===//
//
// Generated op classes of the nn dialect, and the shape rules they share with
// the frontend's tracer.
//
//===----------------------------------------------------------------------===//
#ifndef NN_IR_NNOPS_H
#define NN_IR_NNOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "nn/IR/NNDialect.h"

#define GET_OP_CLASSES
#include "nn/IR/NNOps.h.inc"

namespace mlir::nn {

/// The NumPy broadcast of two shapes, or failure (reported at `loc` when
/// given, naming both shapes and the mismatching dimension).
FailureOr<SmallVector<int64_t>>
inferBroadcastShape(std::optional<Location> loc, StringRef opName,
                    ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs);

/// "2x784" (rank 0: "scalar"), the spelling error messages use.
std::string formatShape(ArrayRef<int64_t> shape);

} // namespace mlir::nn

#endif // NN_IR_NNOPS_H
