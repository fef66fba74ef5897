//===- Compile.h - nn module → native code for the host CPU -----*- C++ -*-===//
//
// The back half of the compiler: an optimized nn module becomes LLVM IR with
// the artifact table of nn/Runtime/ArtifactABI.h, then an object file and a
// shared object (ahead of time), or code in this process (JIT).
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVERSION_CPU_COMPILE_H
#define NN_CONVERSION_CPU_COMPILE_H

#include "nn/Conversion/CPU/CompileCache.h"
#include "nn/Runtime/ArtifactABI.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace mlir::nn {

/// The artifact's JSON description (see ArtifactABI.h) of `func` in an nn
/// module, read before lowering. Fails with a located error on what the ABI
/// cannot express (non-static shapes, unsupported element types).
FailureOr<std::string> describeArtifact(ModuleOp module,
                                        StringRef funcName = "forward");

/// Runs nn-lower-to-llvm on `module` in place. Errors are reported through
/// the context's diagnostic handlers.
LogicalResult lowerToLLVMDialect(ModuleOp module);

/// Translates a lowered module to LLVM IR and adds the artifact table around
/// `funcName`, which becomes internal. The module gets the host triple and
/// data layout and is optimized at -O3.
FailureOr<std::unique_ptr<llvm::Module>>
translateToArtifactIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                      StringRef description, StringRef funcName = "forward");

/// Writes `llvmModule` as a native object file for the host CPU to `out`.
LogicalResult emitObject(llvm::Module &llvmModule, llvm::raw_pwrite_stream &out,
                         std::string &error);

/// Writes `llvmModule` as a native object file for the host CPU.
LogicalResult emitObjectFile(llvm::Module &llvmModule, StringRef path,
                             std::string &error);

/// Links an object file into a shared object with ld.lld.
LogicalResult linkSharedObject(StringRef objectPath, StringRef sharedPath,
                               std::string &error);

/// Code compiled in this process; `table` stays valid while this lives.
struct JitArtifact {
  std::shared_ptr<void> engine;
  const nn_artifact_v2 *table = nullptr;
};

/// JIT-compiles a lowered module (see lowerToLLVMDialect).
FailureOr<JitArtifact> jitCompile(ModuleOp module, StringRef description,
                                  std::string &error);

/// Links a native object file (emitObject's bytes for this host) into code
/// in this process, resolving the runtime's kernels as jitCompile does.
FailureOr<JitArtifact> jitLoadObject(StringRef object, std::string &error);

//===----------------------------------------------------------------------===//
// Whole-module entry points (used by nn-compile and the frontend). Errors
// are reported as diagnostics on the module.
//===----------------------------------------------------------------------===//

/// The module's text as the compile cache keys it (no locations, nothing
/// elided).
std::string printForCache(ModuleOp module);

/// nn module (already optimized) → shared object at `path`. The file is
/// written beside `path` under a temporary name and renamed into place, so an
/// existing file is never left half-written. `module` is lowered in place,
/// unless `cache` (when given) already holds the shared object of this IR
/// under `options` (a canonical text of whatever else decides the code);
/// on a miss the product is stored there. `report` says which happened.
LogicalResult compileToSharedObject(ModuleOp module, StringRef path,
                                    const CompileCache *cache = nullptr,
                                    StringRef options = "",
                                    CacheReport *report = nullptr);

/// nn module (already optimized) → code in this process. `module` is lowered
/// in place. With `cache`, the native object is looked up there first (and
/// stored on a miss) and linked with jitLoadObject, as compileToSharedObject
/// does with shared objects.
FailureOr<JitArtifact> compileInProcess(ModuleOp module,
                                        const CompileCache *cache = nullptr,
                                        StringRef options = "",
                                        CacheReport *report = nullptr);

} // namespace mlir::nn

#endif // NN_CONVERSION_CPU_COMPILE_H
