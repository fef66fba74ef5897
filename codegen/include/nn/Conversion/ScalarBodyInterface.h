//===- ScalarBodyInterface.h - Pointwise ops' scalar bodies -----*- C++ -*-===//
//
// ScalarBodyOpInterface (ScalarBodyInterface.td): the scalar expression of
// a pointwise nn op, attached to every NN_Pointwise op by
// registerScalarBodies. Each op's body lives with its family's lowering
// (codegen/lib/NNToLinalg/<Family>.cpp); adding a pointwise op means adding
// its body there.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVERSION_SCALARBODYINTERFACE_H
#define NN_CONVERSION_SCALARBODYINTERFACE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OpDefinition.h"

#include "nn/Conversion/ScalarBodyInterface.h.inc"

namespace mlir::nn {

/// Attaches ScalarBodyOpInterface to the nn dialect's pointwise ops in
/// every context `registry` is appended to (registerCodegenDialects does).
void registerScalarBodies(DialectRegistry &registry);

/// `op` as a ScalarBodyOpInterface; null, with a located error naming the
/// op, when it has none (a pointwise op added without its body, or a
/// context the bodies were not registered in).
ScalarBodyOpInterface scalarBodyOf(Operation *op);

} // namespace mlir::nn

#endif // NN_CONVERSION_SCALARBODYINTERFACE_H
