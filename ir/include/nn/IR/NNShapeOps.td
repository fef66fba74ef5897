//===- NNShapeOps.td - nn reshaping, slicing, joining and indexing -*- tablegen -*-===//
//
// Operations of the nn dialect: reshaping, slicing, joining and indexing. Included by NNOps.td; C++
// (verifiers, type inference, folders) in ir/lib/ShapeOps.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef NN_SHAPE_OPS_TD
#define NN_SHAPE_OPS_TD

include "nn/IR/NNOpBase.td"

#endif // NN_SHAPE_OPS_TD
