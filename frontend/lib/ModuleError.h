//===- ModuleError.h - Errors located at the traced module ------*- C++ -*-===//
//
// A layer's own checks (MultiheadAttention's embedding size, LSTM's
// input_size) fail through failInModule, so that their messages name the
// module path as the ops' errors do:
//   blocks.0.attn: MultiheadAttention: was expecting embedding dimension of 16,
//   but got 31 (query 2x5x31)
//
//===----------------------------------------------------------------------===//
#ifndef NN_FRONTEND_LIB_MODULEERROR_H
#define NN_FRONTEND_LIB_MODULEERROR_H

#include <string>

namespace nn::detail {

/// Throws nn::Error: `message` after the module path being traced (as
/// TraceContext::fail does), or `message` alone outside a trace.
[[noreturn]] void failInModule(const std::string &message);

} // namespace nn::detail

#endif // NN_FRONTEND_LIB_MODULEERROR_H
