//===- NNShapeCanonicalize.td - Shape op peepholes ---------*- tablegen -*-===//
//
// Declarative (DRR) canonicalization patterns of the shape ops, included by
// ir/lib/ShapeOps.cpp into the ops' getCanonicalizationPatterns.
//
//===----------------------------------------------------------------------===//
#ifndef NN_SHAPE_CANONICALIZE_TD
#define NN_SHAPE_CANONICALIZE_TD

include "mlir/IR/PatternBase.td"
include "nn/IR/NNOps.td"

/// reshape(reshape(x, a), b) → reshape(x, b): the intermediate shape does
/// not matter, elements keep their row-major order through both. The new
/// op takes the outer reshape's result type (b resolved against the same
/// element count).
def ReshapeOfReshape : Pat<(NN_ReshapeOp (NN_ReshapeOp $x, $inner), $outer),
                           (NN_ReshapeOp $x, $outer)>;

#endif // NN_SHAPE_CANONICALIZE_TD
