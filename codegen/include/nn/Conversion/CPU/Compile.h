//===- Compile.h - nn module → native code for a CPU -----------*- C++ -*-===//
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

/// The CPU that generated code is compiled for. The kernels every artifact
/// links choose their instruction set at run time, so this decides only the
/// code generated from the model.
struct CpuTarget {
  /// "host" (this machine's CPU, with every feature it has), an x86-64
  /// level ("x86-64-v2", "x86-64-v3": AVX2 + FMA, "x86-64-v4": AVX-512), or
  /// an LLVM CPU name ("haswell", "skylake-avx512", "znver4", ...).
  std::string cpu = "host";
  /// Features added to or removed from the CPU's own, LLVM-style:
  /// "+avx512f,-avx512vl".
  std::string features;

  bool isHost() const { return cpu == "host" && features.empty(); }
  /// What the compile cache keys the target by.
  std::string cacheText() const { return "cpu=" + cpu + " features=" + features; }
};

/// Checks that `target` names a CPU and features LLVM knows, without
/// building anything; the error names the bad one.
LogicalResult verifyCpuTarget(const CpuTarget &target, std::string &error);

/// The safetensors dtype name ("F32", "BF16", "BOOL", ...) of a tensor
/// element type, or "" for one the artifact ABI cannot carry.
StringRef safetensorsDTypeName(Type type);

/// The artifact's JSON description (see ArtifactABI.h) of `func` in an nn
/// module, read before lowering. Fails with a located error on what the ABI
/// cannot express (non-static shapes, unsupported element types).
FailureOr<std::string> describeArtifact(ModuleOp module,
                                        StringRef funcName = "forward");

/// Runs nn-lower-to-llvm on `module` in place. Errors are reported through
/// the context's diagnostic handlers.
LogicalResult lowerToLLVMDialect(ModuleOp module);

/// Translates a lowered module to LLVM IR and adds the artifact table around
/// `funcName`, which becomes internal. The module gets the target's triple
/// and data layout and is optimized at -O3 for it; the description records
/// the target's CPU and the ISA features its code may use ("target").
FailureOr<std::unique_ptr<llvm::Module>>
translateToArtifactIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                      StringRef description, StringRef funcName = "forward",
                      const CpuTarget &target = {});

/// Writes `llvmModule` as a native object file for `target` to `out`.
LogicalResult emitObject(llvm::Module &llvmModule, llvm::raw_pwrite_stream &out,
                         std::string &error, const CpuTarget &target = {});

/// Writes `llvmModule` as a native object file for `target`.
LogicalResult emitObjectFile(llvm::Module &llvmModule, StringRef path,
                             std::string &error, const CpuTarget &target = {});

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
/// The code is generated for `target`.
LogicalResult compileToSharedObject(ModuleOp module, StringRef path,
                                    const CompileCache *cache = nullptr,
                                    StringRef options = "",
                                    CacheReport *report = nullptr,
                                    const CpuTarget &target = {});

/// nn module (already optimized) → code in this process. `module` is lowered
/// in place. With `cache`, the native object is looked up there first (and
/// stored on a miss) and linked with jitLoadObject, as compileToSharedObject
/// does with shared objects; so is code for a `target` other than the host.
FailureOr<JitArtifact> compileInProcess(ModuleOp module,
                                        const CompileCache *cache = nullptr,
                                        StringRef options = "",
                                        CacheReport *report = nullptr,
                                        const CpuTarget &target = {});

} // namespace mlir::nn

#endif // NN_CONVERSION_CPU_COMPILE_H
