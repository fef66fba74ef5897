//===- NNConvolutionOps.td - nn convolution, pooling and resampling -*- tablegen -*-===//
//
// Operations of the nn dialect: convolution, pooling and resampling. Included by NNOps.td; C++
// (verifiers, type inference, folders) in ir/lib/ConvolutionOps.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVOLUTION_OPS_TD
#define NN_CONVOLUTION_OPS_TD

include "nn/IR/NNOpBase.td"

#endif // NN_CONVOLUTION_OPS_TD
