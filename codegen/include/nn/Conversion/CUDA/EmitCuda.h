//===- EmitCuda.h - Bufferized linalg to CUDA C++ kernels -------*- C++ -*-===//
//
// The CUDA backend's kernel emitter. After nn-optimize, nn → linalg and
// bufferization (buildCudaKernelPipeline), a function is a sequence of
// linalg ops and copies on memrefs with static shapes and layouts, between
// allocations and views. Each linalg op (a fused pointwise group, a
// reduction, a normalization's statistics, a pooling window, an embedding
// gather, a contraction) and each memref.copy becomes one CUDA C++ kernel:
// one thread per point of its parallel iteration space (a grid-stride
// loop), its reduction dimensions a loop in the thread, its body the
// linalg payload written out as C expressions, every operand addressed
// through its strided layout with the sizes, strides and offsets baked in.
// A long reduction (kBlockSize points or more) over few output points whose
// accumulators only add, max or min values in is a block's per point
// instead: its threads fold strided shares into partials, combined in
// halves in shared memory (PlanLaunch::blockPerIteration).
// What is left of the function — allocations and views — is the launch
// plan: which buffer each kernel parameter is, and in what order the
// kernels run.
//
// The source compiles with NVRTC (nn/Conversion/CUDA/Nvrtc.h) and, defining
// NN_CUDA_EMULATION, as host C++: every kernel then also has an
// `extern "C" void <kernel>_emulated(const void *params, unsigned grid,
// unsigned block)` that runs its threads on the CPU, and
// `extern "C" const unsigned long <kernel>_params_bytes`, the size of its
// parameter struct, so the emitted code's numbers are testable without a
// GPU (tests/E2E/CudaKernelGoldenTest.cpp, and whole compiled models
// through the fake driver of tests/Unit/Runtime/Inputs). The emulation
// header defines the CUDA built-ins (threadIdx, blockIdx, ...),
// nn_emulate_launch, and nn_emulate_block_launch, which runs a block
// reduction's threads as fibers so that __syncthreads and __shared__ behave
// as on the GPU.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVERSION_CUDA_EMITCUDA_H
#define NN_CONVERSION_CUDA_EMITCUDA_H

#include "nn/Runtime/CudaLaunchPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::nn::cuda {

using ::nn::cuda::kBlockSize;
using ::nn::cuda::LaunchPlan;
using ::nn::cuda::PlanBuffer;
using ::nn::cuda::PlanLaunch;

/// The kernels of one module: their source, and one plan per function.
struct CudaProgram {
  std::string source;
  std::vector<LaunchPlan> plans;
};

/// Emits the kernels and plans of every function of `module`, which must be
/// bufferized (see buildCudaKernelPipeline). An op the backend cannot run —
/// a dynamic shape, a payload op without a CUDA form, a host-side op that is
/// neither an allocation nor a view — is a located error.
FailureOr<CudaProgram> emitCudaProgram(ModuleOp module);

/// nn → linalg on memrefs for emitCudaProgram: nn-optimize's output (state
/// lowered to arguments) through linalg, elementwise fusion and
/// bufferization, with the CPU's kernel ops and tiling left out.
void buildCudaKernelPipeline(OpPassManager &pm);

/// `nn-translate --nn-to-cuda`: the source emitCudaProgram emits, followed
/// by each function's plan as comments.
void registerToCudaTranslation();

} // namespace mlir::nn::cuda

#endif // NN_CONVERSION_CUDA_EMITCUDA_H
