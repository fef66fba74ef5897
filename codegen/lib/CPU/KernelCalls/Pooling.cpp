//===- Pooling.cpp - Max pooling as a kernel call -------------------------===//
//
// Part of convert-nn-to-kernel (KernelCalls.h): a 2-D nn.max_pool on f32
// (never part of an nn.fused group) becomes nn_kernel.max_pool2d
// (nn_rt_max_pool2d_nchw), which reads the input in place and skips the
// padding, split over the thread pool. Its linalg lowering copies the
// input into a -inf padded tensor and, its window maps being no projected
// permutations, is neither vectorized nor threaded by
// nn-tile-and-vectorize.
//
//===----------------------------------------------------------------------===//

#include "KernelCalls.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::kernel_calls;

namespace {

struct MaxPoolToKernel : public OpRewritePattern<MaxPoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaxPoolOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType inType = staticF32(op.getInput(), 4),
                     resultType = staticF32(op.getResult(), 4);
    if (!inType || !resultType)
      return rewriter.notifyMatchFailure(op, "not a static 4-D f32 pooling");
    // The high padding that ends the last window where the output's size
    // (ceil mode or not) says: the padding nn_kernel.max_pool2d verifies.
    ArrayRef<int64_t> kernel = op.getKernel(), stride = op.getStride(),
                      padding = op.getPadding(), dilation = op.getDilation();
    SmallVector<int64_t> fullPadding(padding);
    for (int i = 0; i < 2; ++i) {
      int64_t reach = dilation[i] * (kernel[i] - 1) + 1;
      int64_t end = (resultType.getDimSize(2 + i) - 1) * stride[i] + reach;
      fullPadding.push_back(
          std::max<int64_t>(0, end - inType.getDimSize(2 + i) - padding[i]));
    }
    Location loc = op.getLoc();
    Value init = rewriter.create<tensor::EmptyOp>(loc, resultType.getShape(),
                                                  resultType.getElementType());
    rewriter.replaceOpWithNewOp<kernel::MaxPool2dOp>(
        op, resultType, op.getInput(), init, op.getKernelAttr(),
        op.getStrideAttr(), rewriter.getDenseI64ArrayAttr(fullPadding),
        op.getDilationAttr());
    return success();
  }
};

} // namespace

void mlir::nn::kernel_calls::populatePoolingPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MaxPoolToKernel>(patterns.getContext());
}
