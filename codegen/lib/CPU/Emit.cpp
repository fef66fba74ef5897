//===- Emit.cpp - Object files and shared objects -------------------------===//
//
// Emits native objects for the target CPU (the host by default) and links
// them into shared objects with ld.lld.
//
//===----------------------------------------------------------------------===//

#include "HostTarget.h"
#include "nn/Conversion/CPU/Compiler.h"
#include "nn/Conversion/CPU/Toolchain.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <algorithm>
#include <mutex>

using namespace mlir;
using namespace mlir::nn;

/// The process's triple and LLVM target, the native target initialized;
/// null with `error` set when LLVM was built without it.
static const llvm::Target *nativeTarget(std::string &triple,
                                        std::string &error) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  triple = llvm::sys::getProcessTriple();
  return llvm::TargetRegistry::lookupTarget(triple, error);
}

LogicalResult mlir::nn::verifyCpuTarget(const CpuTarget &target,
                                        std::string &error) {
  std::string triple;
  const llvm::Target *llvmTarget = nativeTarget(triple, error);
  if (!llvmTarget)
    return failure();
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      llvmTarget->createMCSubtargetInfo(triple, "", ""));
  if (target.cpu != "host" && !generic->isCPUStringValid(target.cpu)) {
    error = "unknown target CPU '" + target.cpu +
            "' (host, x86-64-v2, x86-64-v3, x86-64-v4, or an LLVM CPU name "
            "such as haswell, skylake-avx512 or znver4)";
    return failure();
  }
  SmallVector<StringRef> features;
  StringRef(target.features).split(features, ',', -1, /*KeepEmpty=*/false);
  for (StringRef feature : features) {
    feature = feature.trim();
    if (!feature.starts_with("+") && !feature.starts_with("-")) {
      error = "target feature '" + feature.str() +
              "' must start with + (add) or - (remove)";
      return failure();
    }
    StringRef name = feature.drop_front();
    if (llvm::none_of(generic->getAllProcessorFeatures(),
                      [&](const llvm::SubtargetFeatureKV &known) {
                        return name == known.Key;
                      })) {
      error = "unknown target feature '" + name.str() + "'";
      return failure();
    }
  }
  return success();
}

std::unique_ptr<llvm::TargetMachine>
mlir::nn::createTargetMachine(const CpuTarget &target, std::string &error) {
  std::string triple;
  const llvm::Target *llvmTarget = nativeTarget(triple, error);
  if (!llvmTarget || failed(verifyCpuTarget(target, error)))
    return nullptr;
  std::string cpu = target.cpu;
  llvm::SubtargetFeatures features;
  if (cpu == "host") {
    cpu = llvm::sys::getHostCPUName().str();
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features.AddFeature(feature.first(), feature.second);
  }
  SmallVector<StringRef> extra;
  StringRef(target.features).split(extra, ',', -1, /*KeepEmpty=*/false);
  for (StringRef feature : extra)
    features.AddFeature(feature.trim());
  return std::unique_ptr<llvm::TargetMachine>(llvmTarget->createTargetMachine(
      triple, cpu, features.getString(), llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

/// The object code of `llvmModule` for `target`, in memory, checked by
/// verifyObjectSymbols: what emitObject and emitObjectFile write.
static LogicalResult emitCheckedObject(llvm::Module &llvmModule,
                                       SmallVectorImpl<char> &object,
                                       std::string &error,
                                       const CpuTarget &target) {
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(target, error);
  if (!machine)
    return failure();
  llvm::raw_svector_ostream out(object);
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, out, nullptr,
                                   llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return failure();
  }
  pm.run(llvmModule);
  return verifyObjectSymbols(StringRef(object.data(), object.size()), error);
}

LogicalResult mlir::nn::emitObject(llvm::Module &llvmModule,
                                   llvm::raw_pwrite_stream &out,
                                   std::string &error,
                                   const CpuTarget &target) {
  SmallVector<char, 0> object;
  if (failed(emitCheckedObject(llvmModule, object, error, target)))
    return failure();
  out.write(object.data(), object.size());
  return success();
}

LogicalResult mlir::nn::emitObjectFile(llvm::Module &llvmModule, StringRef path,
                                       std::string &error,
                                       const CpuTarget &target) {
  // Emitted and checked before `path` is opened: a failed compile leaves
  // no file behind.
  SmallVector<char, 0> object;
  if (failed(emitCheckedObject(llvmModule, object, error, target)))
    return failure();
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  out.write(object.data(), object.size());
  out.flush();
  if (out.has_error()) {
    error = "writing '" + path.str() + "' failed: " + out.error().message();
    out.clear_error();
    return failure();
  }
  return success();
}

LogicalResult mlir::nn::linkSharedObject(StringRef objectPath,
                                         StringRef sharedPath,
                                         std::string &error) {
  // libm is a declared dependency (erff, tanhf, ...); malloc/free and
  // pthreads come from the loading process's libc. The micro-kernels
  // (nn_rt_*, a static PIC archive) are linked in, so the .so needs nothing
  // from nn at load time; their nn_rt_* symbols stay exported for
  // nn::Artifact (nn_rt_set_num_threads).
  llvm::Expected<const Toolchain &> toolchain = locateToolchain();
  if (!toolchain) {
    error = llvm::toString(toolchain.takeError());
    return failure();
  }
  SmallVector<StringRef> argv = {
      toolchain->lld, "-shared",  "--gc-sections",           "-o",
      sharedPath,     objectPath, toolchain->kernelsArchive, toolchain->libm};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(toolchain->lld, argv, std::nullopt, {}, 0,
                                     0, &message);
  if (rc != 0) {
    error = "linking '" + sharedPath.str() + "' with " + toolchain->lld +
            " failed" + (message.empty() ? std::string() : ": " + message) +
            " (exit code " + std::to_string(rc) + ")";
    return failure();
  }
  return success();
}
