//===- JIT.cpp - In-process compilation -----------------------------------===//
//
// The JIT path shares everything with the ahead-of-time one up to LLVM IR
// (translateToArtifactIR adds the same table), then hands the module to
// mlir::ExecutionEngine (ORC) instead of writing an object file. With the
// compile cache, the object file is what is cached: jitLoadObject links one
// (fresh or from the cache) into an ORC LLJIT of its own, with the same
// symbols.
//
//===----------------------------------------------------------------------===//

#include "HostTarget.h"
#include "nn/Conversion/CPU/Compiler.h"

#include "nn/Runtime/Kernels.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::nn;

/// The kernels the generated code calls, from this process's nn_kernels
/// (linked into the compiler; not necessarily exported dynamically).
static llvm::orc::SymbolMap
kernelSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap symbols;
  auto add = [&](const char *name, void *address) {
    symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                               llvm::JITSymbolFlags::Exported};
  };
#define NN_RT_FUNCTION(name, ...) add(#name, reinterpret_cast<void *>(&name));
#include "nn/Runtime/KernelABI.def"
  return symbols;
}

FailureOr<JitArtifact> mlir::nn::jitCompile(ModuleOp module,
                                            std::string &error) {
  if (!createHostTargetMachine(error)) // initializes the native target
    return failure();
  bool translated = true;
  auto builder = [&](Operation *op,
                     llvm::LLVMContext &ctx) -> std::unique_ptr<llvm::Module> {
    auto llvmModule = translateToArtifactIR(llvm::cast<ModuleOp>(op), ctx);
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
  (*engine)->registerSymbols(kernelSymbols);
  auto getter = (*engine)->lookup(NN_ARTIFACT_ENTRY_POINT);
  if (!getter) {
    error = llvm::toString(getter.takeError());
    return failure();
  }
  JitArtifact artifact;
  artifact.table = reinterpret_cast<nn_get_artifact_v2_fn>(*getter)();
  artifact.engine = std::shared_ptr<ExecutionEngine>(std::move(*engine));
  return artifact;
}

FailureOr<JitArtifact> mlir::nn::jitLoadObject(StringRef object,
                                               std::string &error) {
  auto fail = [&](llvm::Error err) -> FailureOr<JitArtifact> {
    error = llvm::toString(std::move(err));
    return failure();
  };
  if (!createHostTargetMachine(error)) // initializes the native target
    return failure();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return fail(jit.takeError());
  llvm::orc::JITDylib &dylib = (*jit)->getMainJITDylib();
  // libm and libc (expf, malloc, ...) from this process; the kernels from
  // this process's nn_kernels, defined first so that they win.
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process)
    return fail(process.takeError());
  dylib.addGenerator(std::move(*process));
  if (llvm::Error err = dylib.define(
          llvm::orc::absoluteSymbols(kernelSymbols(llvm::orc::MangleAndInterner(
              (*jit)->getExecutionSession(), (*jit)->getDataLayout())))))
    return fail(std::move(err));
  if (llvm::Error err = (*jit)->addObjectFile(
          llvm::MemoryBuffer::getMemBufferCopy(object, "nn-model.o")))
    return fail(std::move(err));
  auto getter = (*jit)->lookup(NN_ARTIFACT_ENTRY_POINT);
  if (!getter)
    return fail(getter.takeError());
  JitArtifact artifact;
  artifact.table = getter->toPtr<nn_get_artifact_v2_fn>()();
  artifact.engine = std::shared_ptr<llvm::orc::LLJIT>(std::move(*jit));
  return artifact;
}
