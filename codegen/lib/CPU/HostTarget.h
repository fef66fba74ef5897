//===- HostTarget.h - The host CPU as an LLVM target ------------*- C++ -*-===//
#ifndef NN_CODEGEN_CPU_HOSTTARGET_H
#define NN_CODEGEN_CPU_HOSTTARGET_H

#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace mlir::nn {

/// A TargetMachine for this machine's CPU and features, PIC, -O3; nullptr
/// with `error` set when the native target is unavailable.
std::unique_ptr<llvm::TargetMachine> createHostTargetMachine(std::string &error);

} // namespace mlir::nn

#endif // NN_CODEGEN_CPU_HOSTTARGET_H
