//===- NNToLinalg.cpp - The convert-nn-to-linalg pass ---------------------===//
//
// The conversion target and driver; the patterns live in one file per op
// family (Linear.cpp, Elementwise.cpp, Activation.cpp, Convolution.cpp,
// Normalization.cpp, Shape.cpp, Loss.cpp, Dropout.cpp, Attention.cpp, Fused.cpp).
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "nn/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::nn {
#define GEN_PASS_DEF_CONVERTNNTOLINALGPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

namespace {

struct ConvertNNToLinalgPass
    : public nn::impl::ConvertNNToLinalgPassBase<ConvertNNToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           func::FuncDialect>();
    target.addIllegalDialect<NNDialect>();

    RewritePatternSet patterns(ctx);
    populateLinearPatterns(patterns);
    populateElementwisePatterns(patterns);
    populateActivationPatterns(patterns);
    populateConvolutionPatterns(patterns);
    populateNormalizationPatterns(patterns);
    populateShapePatterns(patterns);
    populateLossPatterns(patterns);
    populateDropoutPatterns(patterns);
    populateAttentionPatterns(patterns);
    populateFusedPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    giveEveryResultItsOwnTensor(getOperation());
  }

  /// A function argument, or a value returned twice, becomes a copy
  /// (bufferization.alloc_tensor copy(...)), so every result bufferizes to a
  /// buffer of its own that becomes the caller's output. Returning an input
  /// as it is (Identity, a no-op squeeze, folds back to the input) would
  /// otherwise alias input and output, and crashes MLIR 19's
  /// buffer-results-to-out-params{hoist-static-allocs}.
  static void giveEveryResultItsOwnTensor(func::FuncOp func) {
    func.walk([](func::ReturnOp ret) {
      OpBuilder b(ret);
      llvm::SmallPtrSet<Value, 4> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        bool fresh = seen.insert(v).second && !llvm::isa<BlockArgument>(v);
        if (fresh || !llvm::isa<RankedTensorType>(v.getType()))
          continue;
        auto copy = b.create<bufferization::AllocTensorOp>(
            ret.getLoc(), llvm::cast<RankedTensorType>(v.getType()),
            ValueRange(), /*copy=*/v, /*sizeHint=*/Value(),
            /*memorySpace=*/Attribute());
        operand.set(copy);
      }
    });
  }
};

} // namespace
