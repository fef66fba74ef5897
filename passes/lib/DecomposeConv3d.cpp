//===- DecomposeConv3d.cpp - 3-D convolution as 2-D ones over depth -------===//
//
// Implements nn-decompose-conv3d: every static nn.conv with three spatial
// dimensions becomes, per depth offset of its kernel, a 2-D nn.conv over
// the input's depth slices (laid out as images of a larger batch), summed
// and permuted back. See Passes.td for the identity and the layout.
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Autodiff.h"
#include "nn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::nn {
#define GEN_PASS_DEF_DECOMPOSECONV3DPASS
#include "nn/Transforms/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

namespace {

/// The sum of 2-D convolutions that computes `conv` (3 spatial dimensions,
/// static shapes), built with `g` (GradBuilder: nn ops with inferred
/// types).
Value decompose(GradBuilder &g, ConvOp conv) {
  Value x = conv.getInput(), w = conv.getWeight();
  auto xType = llvm::cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> xs = xType.getShape(),
                    ws = llvm::cast<RankedTensorType>(w.getType()).getShape(),
                    ys =
                        llvm::cast<RankedTensorType>(conv.getType()).getShape();
  int64_t n = xs[0], channels = xs[1], out = ws[0], depth = ys[2];
  ArrayRef<int64_t> stride = conv.getStride(), dilation = conv.getDilation();
  SmallVector<int64_t> lo = padLow(conv.getPadding(), 3),
                       hi = padHigh(conv.getPadding(), 3);

  // [N, D + pad, C, H, W]: each depth slice is an image.
  Value canvas = g.pad(g.permute(x, {0, 2, 1, 3, 4}), 1, lo[0], hi[0], 0.0);

  OpBuilder &b = g.builder();
  auto imagesType = RankedTensorType::get({n * depth, out, ys[3], ys[4]},
                                          xType.getElementType());
  Value sum;
  for (int64_t kd = 0; kd < ws[2]; ++kd) {
    int64_t first = kd * dilation[0];
    Value images =
        g.reshape(g.slice(canvas, 1, first, first + (depth - 1) * stride[0] + 1,
                          stride[0]),
                  {n * depth, channels, xs[3], xs[4]});
    Value kernel =
        g.reshape(g.slice(w, 2, kd, kd + 1), {out, ws[1], ws[3], ws[4]});
    Value part = b.create<ConvOp>(
        g.location(), imagesType, images, kernel,
        kd == 0 ? conv.getBias() : Value(),
        b.getDenseI64ArrayAttr(stride.drop_front()),
        b.getDenseI64ArrayAttr({lo[1], lo[2], hi[1], hi[2]}),
        b.getDenseI64ArrayAttr(dilation.drop_front()), conv.getGroupsAttr());
    sum = sum ? g.add(sum, part) : part;
  }
  return g.permute(g.reshape(sum, {n, depth, out, ys[3], ys[4]}),
                   {0, 2, 1, 3, 4});
}

bool isStatic(Value v) {
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape();
}

struct DecomposeConv3dPass
    : public nn::impl::DecomposeConv3dPassBase<DecomposeConv3dPass> {
  void runOnOperation() override {
    SmallVector<ConvOp> convs;
    getOperation().walk([&](ConvOp conv) {
      if (conv.getSpatialRank() == 3 && isStatic(conv.getInput()) &&
          isStatic(conv.getWeight()) && isStatic(conv.getResult()))
        convs.push_back(conv);
    });
    for (ConvOp conv : convs) {
      OpBuilder builder(conv);
      GradBuilder g(builder, conv.getLoc());
      try {
        Value result = decompose(g, conv);
        conv.getResult().replaceAllUsesWith(result);
        conv.erase();
      } catch (const GradBuilder::Failure &) {
        // Every shape above follows from the verified convolution.
        conv.emitOpError("nn-decompose-conv3d: a 2-D piece of this "
                         "convolution failed to verify (a bug in nn)");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
