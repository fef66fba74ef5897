//===- NNToLinalg.cpp - The convert-nn-to-linalg pass ---------------------===//
//
// The conversion target and driver; the patterns live in one file per op
// family (Linear.cpp, Elementwise.cpp, Activation.cpp, Convolution.cpp,
// Normalization.cpp, Shape.cpp, Loss.cpp, Dropout.cpp, Attention.cpp,
// Fused.cpp).
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "nn/Conversion/Passes.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::nn {
#define GEN_PASS_DEF_CONVERTNNTOLINALGPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

#include "nn/Conversion/ScalarBodyInterface.cpp.inc"

using namespace mlir;
using namespace mlir::nn;

void mlir::nn::registerScalarBodies(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NNDialect *) {
    attachElementwiseScalarBodies(ctx);
    attachActivationScalarBodies(ctx);
  });
}

namespace {

struct ConvertNNToLinalgPass
    : public mlir::nn::impl::ConvertNNToLinalgPassBase<ConvertNNToLinalgPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertNNToLinalgPassBase::getDependentDialects(registry);
    // The pointwise ops' scalar bodies, in every context the pass runs in.
    registerScalarBodies(registry);
  }

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
  }
};

} // namespace
