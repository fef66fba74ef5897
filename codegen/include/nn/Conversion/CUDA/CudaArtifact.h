//===- CudaArtifact.h - A model's GPU half in its shared object -*- C++ -*-===//
//
// A model compiled for CUDA (PipelineOptions::cuda; nn-compile
// --target=cuda) is the CPU artifact plus its GPU half: the module through
// nn-optimize and the CUDA kernel pipeline, its kernels emitted
// (nn/Conversion/CUDA/EmitCuda.h) and compiled by NVRTC to PTX and a cubin
// for the target architecture, and the launch plans, as the bytes of
// nn/Runtime/CudaImage.h. The shared object exports them through
// nn_get_cuda_image_v1 (nn/Runtime/ArtifactABI.h), so deploying needs the
// driver alone: no NVRTC, no toolkit.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVERSION_CUDA_CUDAARTIFACT_H
#define NN_CONVERSION_CUDA_CUDAARTIFACT_H

#include "nn/Conversion/CPU/Compiler.h"
#include "nn/Conversion/CUDA/EmitCuda.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/Module.h"

#include <string>

namespace mlir::nn::cuda {

/// The kernels and launch plans of `module` (an nn module, left as it is)
/// after the nn-optimize and weight embedding `options` ask for: what
/// compileCudaImage compiles, and `nn-compile --emit=cuda` prints.
FailureOr<CudaProgram> emitCudaKernels(ModuleOp module,
                                       const PipelineOptions &options);

/// The GPU half of `module` (an nn module, left as it is) compiled as
/// `options` say for `options.cuda`: the bytes of a CudaImage. Errors are
/// diagnostics on the module: an op the backend cannot run, NVRTC missing
/// or failing, an architecture NVRTC does not know. With a `cache`, the
/// image is looked up under the module's text and the options (the arch and
/// NVRTC's version among them: PipelineOptions::cacheText) and stored after
/// a miss, so an in-process compile (nn::compile for a GPU) runs NVRTC once
/// per model; `report` says which happened.
FailureOr<std::string> compileCudaImage(ModuleOp module,
                                        const PipelineOptions &options,
                                        const CompileCache *cache = nullptr,
                                        CacheReport *report = nullptr);

/// Adds `image` to `llvmModule` with the exported getter
/// nn_get_cuda_image_v1 that returns it.
void addCudaImage(llvm::Module &llvmModule, StringRef image);

} // namespace mlir::nn::cuda

#endif // NN_CONVERSION_CUDA_CUDAARTIFACT_H
