//===- NNNormalizationOps.td - nn normalization and reductions -*- tablegen -*-===//
//
// Operations of the nn dialect: normalization and reductions. Included by NNOps.td; C++
// (verifiers, type inference, folders) in ir/lib/NormalizationOps.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef NN_NORMALIZATION_OPS_TD
#define NN_NORMALIZATION_OPS_TD

include "nn/IR/NNOpBase.td"

#endif // NN_NORMALIZATION_OPS_TD
