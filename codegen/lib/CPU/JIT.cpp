//===- JIT.cpp - In-process compilation -----------------------------------===//
//
// The JIT path shares everything with the ahead-of-time one up to LLVM IR
// (translateToArtifactIR adds the same table), then hands the module to
// mlir::ExecutionEngine (ORC) instead of writing an object file.
//
//===----------------------------------------------------------------------===//

#include "HostTarget.h"
#include "nn/Conversion/CPU/Compile.h"

#include "nn/Runtime/Kernels.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/Error.h"

using namespace mlir;
using namespace mlir::nn;

FailureOr<JitArtifact> mlir::nn::jitCompile(ModuleOp module,
                                            StringRef description,
                                            std::string &error) {
  if (!createHostTargetMachine(error)) // initializes the native target
    return failure();
  bool translated = true;
  auto builder = [&](Operation *op, llvm::LLVMContext &ctx)
      -> std::unique_ptr<llvm::Module> {
    auto llvmModule =
        translateToArtifactIR(llvm::cast<ModuleOp>(op), ctx, description);
    if (failed(llvmModule)) {
      translated = false;
      return nullptr;
    }
    return std::move(*llvmModule);
  };
  ExecutionEngineOptions options;
  options.llvmModuleBuilder = builder;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  auto engine = ExecutionEngine::create(module, options);
  if (!engine || !translated) {
    error = engine ? "translation to LLVM IR failed"
                   : llvm::toString(engine.takeError());
    return failure();
  }
  // The kernels the generated code calls, from this process's nn_kernels
  // (linked into the compiler; not necessarily exported dynamically).
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto add = [&](const char *name, void *address) {
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                 llvm::JITSymbolFlags::Exported};
    };
    add("nn_rt_sgemm", reinterpret_cast<void *>(&nn_rt_sgemm));
    add("nn_rt_conv2d_nchw", reinterpret_cast<void *>(&nn_rt_conv2d_nchw));
    add("nn_rt_parallel_for", reinterpret_cast<void *>(&nn_rt_parallel_for));
    return symbols;
  });
  auto getter = (*engine)->lookup(NN_ARTIFACT_ENTRY_POINT);
  if (!getter) {
    error = llvm::toString(getter.takeError());
    return failure();
  }
  JitArtifact artifact;
  artifact.table = reinterpret_cast<nn_get_artifact_v1_fn>(*getter)();
  artifact.engine = std::shared_ptr<ExecutionEngine>(std::move(*engine));
  return artifact;
}
