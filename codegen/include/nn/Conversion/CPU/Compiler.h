//===- Compiler.h - nn module → native code for a CPU ----------*- C++ -*-===//
//
// The compiler for the CPU: one staged pipeline takes a traced nn module
// through nn-optimize to the LLVM dialect (buildCompilePipeline); the result
// becomes LLVM IR with the artifact table of nn/Runtime/ArtifactABI.h, then
// an object file and a shared object (ahead of time), or code in this
// process (JIT). nn-compile, nn::compile and nn::compile_to_file all run it.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVERSION_CPU_COMPILER_H
#define NN_CONVERSION_CPU_COMPILER_H

#include "nn/Conversion/CPU/CompileCache.h"
#include "nn/Runtime/ArtifactABI.h"
#include "nn/Runtime/ArtifactDescription.h"
#include "nn/Runtime/StateDict.h"
#include "nn/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <optional>
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
  std::string cacheText() const {
    return "cpu=" + cpu + " features=" + features;
  }
};

/// A GPU a model is compiled for besides the CPU.
struct CudaTarget {
  /// The compute capability, as "sm_90": PTX for compute_90 and a cubin for
  /// sm_90 (which later sm_9x GPUs run; later majors compile the PTX).
  std::string arch = "sm_90";
};

/// Checks that `target` names a CPU and features LLVM knows, without
/// building anything; the error names the bad one.
LogicalResult verifyCpuTarget(const CpuTarget &target, std::string &error);

/// The stages of one compile, in order; each is a prefix of the next, and
/// `nn-compile --emit=<name>` prints the module after its stage.
enum class CompileStage {
  /// "nn": after nn-optimize and, when asked, embedding the weights.
  NN,
  /// "kernels": described (nn-describe-artifact), what depends on the state
  /// alone hoisted into @prepare, the state passed as arguments and the
  /// contractions called as micro-kernels.
  Kernels,
  /// "linalg": the rest of nn as linalg on tensors.
  Linalg,
  /// "llvm-mlir": tiled, vectorized, bufferized, planned and outlined, in
  /// the LLVM dialect; what translateToArtifactIR takes.
  LLVMDialect,
};

/// Everything besides the module that decides what a compile produces.
struct PipelineOptions {
  /// nn-optimize's options; null for a module that is optimized already.
  std::shared_ptr<const OptimizePipelineOptions> optimize =
      std::make_shared<OptimizePipelineOptions>();
  /// Embedded as the state's values after nn-optimize (see EmbedState.h);
  /// null for none. Must outlive the compile.
  const ::nn::StateDict *embed = nullptr;
  /// The CPU the code is generated for.
  CpuTarget target;
  /// When set, the artifact also carries forward's kernels for this GPU
  /// and their launch plans (nn/Conversion/CUDA/CudaArtifact.h).
  std::optional<CudaTarget> cuda;
  /// Called with the pass manager before it runs, to instrument it
  /// (nn-compile applies MLIR's pass-manager flags: --mlir-timing,
  /// --mlir-print-ir-after-all, ...).
  std::function<LogicalResult(PassManager &)> configure;

  /// The canonical text the compile cache keys these options by: every
  /// nn-optimize option, the target, and a digest of the embedded tensors.
  std::string cacheText() const;
};

/// Adds the compile pipeline up to and including `last` to `pm`.
void buildCompilePipeline(OpPassManager &pm, const PipelineOptions &options,
                          CompileStage last);

/// Runs the compile pipeline up to and including `last` on `module`, in
/// place. Errors are reported through the context's diagnostic handlers.
LogicalResult runCompilePipeline(ModuleOp module,
                                 const PipelineOptions &options,
                                 CompileStage last);

/// The safetensors dtype name ("F32", "BF16", "BOOL", ...) of a tensor
/// element type, or "" for one the artifact ABI cannot carry.
StringRef safetensorsDTypeName(Type type);

/// The artifact's description (ArtifactABI.h) of `func` in an nn module,
/// read before lowering. Fails with a located error on what the ABI cannot
/// express (non-static shapes, unsupported element types, values of more
/// bytes than an int64 counts). nn-describe-artifact attaches it to the
/// module (#nn_kernel.artifact).
FailureOr<::nn::ArtifactDescription>
describeArtifact(ModuleOp module, StringRef funcName = "forward");

/// Translates a module lowered by the compile pipeline to LLVM IR and adds
/// the artifact table around `funcName`, which becomes internal, with the
/// description nn-describe-artifact attached. The module gets the target's
/// triple and data layout and is optimized at -O3 for it; the description
/// records the target's CPU and the ISA features its code may use
/// ("target").
FailureOr<std::unique_ptr<llvm::Module>>
translateToArtifactIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                      StringRef funcName = "forward",
                      const CpuTarget &target = {});

/// The whole compile up to LLVM IR: runCompilePipeline, then
/// translateToArtifactIR (and, for a CUDA target, the GPU half compiled and
/// added; see nn/Conversion/CUDA/CudaArtifact.h). What nn-compile --emit=llvm
/// prints is what the shared object and the JIT are built from.
FailureOr<std::unique_ptr<llvm::Module>>
compileToLLVMIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                const PipelineOptions &options);

/// Whether code a compiled model runs may call the external function
/// `symbol`: nn's kernels (nn/Runtime/KernelABI.def), which every shared
/// object links and the JIT resolves, and the C library's memory and
/// <math.h> functions (libm linked, the rest from the loading process).
bool isLinkableSymbol(StringRef symbol);

/// Fails on each external function of a module in the LLVM dialect that
/// isLinkableSymbol refuses, with an error at its first use: the op it was
/// lowered from. translateToArtifactIR checks this first.
LogicalResult verifyExternalCalls(ModuleOp module);

/// Fails, with `error` naming it, on the first undefined symbol of the
/// native object file `object` that isLinkableSymbol refuses (what LLVM's
/// code generator called for an operation the target has no instruction
/// for). emitObject checks this before writing anything.
LogicalResult verifyObjectSymbols(StringRef object, std::string &error);

/// Writes `llvmModule` as a native object file for `target` to `out`,
/// once verifyObjectSymbols has passed it.
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

/// JIT-compiles a module lowered by the compile pipeline for the host.
FailureOr<JitArtifact> jitCompile(ModuleOp module, std::string &error);

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

/// Stores `bytes` under `key` in `cache`; a cache that cannot be written
/// costs the next compile its speed-up, not this one its result, so a
/// failure (or `bytes`' own error) is a warning on `module`.
void storeOrWarn(ModuleOp module, const CompileCache &cache, StringRef key,
                 llvm::Expected<StringRef> bytes);

/// nn module → shared object at `path`, compiled as `options` say. The file
/// is written beside `path` under a temporary name and renamed into place,
/// so an existing file is never left half-written. `module` is compiled in
/// place, unless `cache` (when given) already holds the shared object of
/// this IR under these options; on a miss the product is stored there.
/// `report` says which happened.
LogicalResult compileToSharedObject(ModuleOp module, StringRef path,
                                    const PipelineOptions &options,
                                    const CompileCache *cache = nullptr,
                                    CacheReport *report = nullptr);

/// nn module → code in this process, compiled as `options` say. `module` is
/// compiled in place. With `cache`, the native object is looked up there
/// first (and stored on a miss) and linked with jitLoadObject, as
/// compileToSharedObject does with shared objects; so is code for a target
/// other than the host.
FailureOr<JitArtifact> compileInProcess(ModuleOp module,
                                        const PipelineOptions &options,
                                        const CompileCache *cache = nullptr,
                                        CacheReport *report = nullptr);

} // namespace mlir::nn

#endif // NN_CONVERSION_CPU_COMPILER_H
