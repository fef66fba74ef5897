//===- NNActivationOps.td - nn activation functions -*- tablegen -*-===//
//
// Operations of the nn dialect: activation functions. Included by NNOps.td; C++
// (verifiers, type inference, folders) in ir/lib/ActivationOps.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef NN_ACTIVATION_OPS_TD
#define NN_ACTIVATION_OPS_TD

include "nn/IR/NNOpBase.td"

#endif // NN_ACTIVATION_OPS_TD
