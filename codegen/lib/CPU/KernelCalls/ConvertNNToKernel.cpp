//===- ConvertNNToKernel.cpp - Heavy nn ops to nn_kernel ops -------------===//
//
// Implements convert-nn-to-kernel (see Passes.td and KernelCalls.h for its
// pieces): the contraction and batched patterns run once over the module's
// existing ops, then the packer numbers the context's slots.
//
//===----------------------------------------------------------------------===//

#include "KernelCalls.h"

#include "nn/Conversion/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nn {
#define GEN_PASS_DEF_CONVERTNNTOKERNELPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::kernel_calls;
namespace abi = mlir::nn::kernel_abi;

namespace {

struct ConvertNNToKernelPass
    : public mlir::nn::impl::ConvertNNToKernelPassBase<ConvertNNToKernelPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // nn-lower-kernel-ops declares the kernels as KernelABI.def types them:
    // a symbol of one of their names that is something else is refused
    // here already, before anything is rewritten.
    if (failed(abi::verifyDeclarations(module)))
      return signalPassFailure();
    Packer packer;
    if (failed(packer.init(module)))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateContractionPatterns(patterns, packer);
    populateBatchedPatterns(patterns);
    populatePoolingPatterns(patterns);
    GreedyRewriteConfig config;
    config.maxIterations = 1;
    // Each op is rewritten once; no folding of unrelated ops.
    config.strictMode = GreedyRewriteStrictness::ExistingOps;
    (void)applyPatternsAndFoldGreedily(module, std::move(patterns), config);
    packer.finish(module);
  }
};

} // namespace
