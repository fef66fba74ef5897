//===- NNElementwiseOps.td - nn elementwise arithmetic, math and comparisons -*- tablegen -*-===//
//
// Operations of the nn dialect: elementwise arithmetic, math and comparisons. Included by NNOps.td; C++
// (verifiers, type inference, folders) in ir/lib/ElementwiseOps.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef NN_ELEMENTWISE_OPS_TD
#define NN_ELEMENTWISE_OPS_TD

include "nn/IR/NNOpBase.td"

#endif // NN_ELEMENTWISE_OPS_TD
