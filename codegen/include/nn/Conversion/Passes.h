//===- Passes.h - Passes that leave the nn dialect --------------*- C++ -*-===//
//
// The lowering passes (generated from Passes.td) and the named pipeline that
// takes an nn module to the LLVM dialect for the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVERSION_PASSES_H
#define NN_CONVERSION_PASSES_H

#include "nn/Kernel/KernelDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::nn {

#define GEN_PASS_DECL
#include "nn/Conversion/Passes.h.inc"

/// nn (after nn-optimize) → LLVM dialect for the host CPU: state to
/// arguments, nn to linalg, bufferization with results as out-parameters,
/// loops, LLVM. Functions take every memref as a bare pointer, so a compiled
/// `forward` is `void forward(ptr state..., ptr inputs..., ptr outputs...)`.
/// The compile pipeline's stages after nn-describe-artifact
/// (buildCompilePipeline in nn/Conversion/CPU/Compiler.h), registered for
/// nn-opt as `nn-lower-to-llvm`.
void buildLowerToLLVMPipeline(OpPassManager &pm);

/// Adds to `registry` every dialect, interface model and translation the
/// nn pipelines use (upstream dialects and extensions, nn, LLVM IR export).
/// runCompilePipeline appends it to the module's context itself.
void registerCodegenDialects(DialectRegistry &registry);

/// Registers the conversion passes and the `nn-lower-to-llvm` and
/// `nn-lower-to-cuda-kernels` pipelines.
void registerConversionPasses();

/// Appends the textual `pipeline` (one of nn's own, built in) to `pm`,
/// resolving upstream and nn pass names; a pipeline that does not parse is
/// a bug in nn, reported as such.
void addBuiltinPipeline(OpPassManager &pm, StringRef pipeline);

} // namespace mlir::nn

#endif // NN_CONVERSION_PASSES_H
