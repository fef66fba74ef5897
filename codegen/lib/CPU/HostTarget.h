//===- HostTarget.h - The target CPU as an LLVM target ----------*- C++ -*-===//
#ifndef NN_CODEGEN_CPU_HOSTTARGET_H
#define NN_CODEGEN_CPU_HOSTTARGET_H

#include "nn/Conversion/CPU/Compiler.h"

#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace mlir::nn {

/// A TargetMachine for `target` (this machine's CPU and features by
/// default), PIC, -O3; nullptr with `error` set when the native target is
/// unavailable or `target` names an unknown CPU or feature.
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const CpuTarget &target, std::string &error);

/// createTargetMachine for this machine.
inline std::unique_ptr<llvm::TargetMachine>
createHostTargetMachine(std::string &error) {
  return createTargetMachine(CpuTarget(), error);
}

} // namespace mlir::nn

#endif // NN_CODEGEN_CPU_HOSTTARGET_H
