//===- ExpandBF16Conversions.cpp - bf16 casts as integer arithmetic -------===//
//
// The nn-expand-bf16-conversions pass: arith.extf from bf16 and arith.truncf
// to bf16 become integer operations (upstream's BFloat16 expansion patterns
// alone), so that compiled models never call `__truncsfbf2`, which LLVM 19
// emits for `fptrunc float to bfloat` on x86 without AVX512-BF16 and which
// the system's libgcc does not provide.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "nn-expand-bf16-conversions"

namespace mlir::nn {
#define GEN_PASS_DEF_EXPANDBF16CONVERSIONSPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;

namespace {

struct ExpandBF16ConversionsPass
    : public mlir::nn::impl::ExpandBF16ConversionsPassBase<
          ExpandBF16ConversionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
