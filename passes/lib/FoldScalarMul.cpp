//===- FoldScalarMul.cpp - Fold constant scalar factors into weights ------===//
//
// Implements nn-fold-scalar-mul: a multiplication or division by a constant
// scalar next to a linear (on its input or its result) moves onto the
// linear's weight and bias when that touches fewer elements, and one on an
// attention's query or key becomes part of the attention's `scale`
// attribute. The cost rule and what is left alone are in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nn-fold-scalar-mul"

namespace mlir::nn {
#define GEN_PASS_DEF_FOLDSCALARMULPASS
#include "nn/Transforms/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

namespace {

/// The one value every element of the constant `value` holds, when `value`
/// is a float constant whose elements are all that one finite, non-zero
/// value. (Moving a zero or an infinity changes which elements end up NaN:
/// (x·w)·0 is NaN only where x·w is infinite, x·(w·0) wherever x is.)
FloatAttr uniformFloat(Value value) {
  DenseElementsAttr dense;
  if (!matchPattern(value, m_Constant(&dense)) || !dense.isSplat() ||
      !llvm::isa<FloatType>(dense.getElementType()))
    return {};
  auto factor = llvm::dyn_cast<FloatAttr>(dense.getSplatValue<Attribute>());
  if (!factor || !factor.getValue().isFiniteNonZero())
    return {};
  return factor;
}

int64_t numel(Value value) {
  return llvm::cast<RankedTensorType>(value.getType()).getNumElements();
}

/// `x * s` or `x / s` (also `s * x`) with a uniform constant `s` that does not
/// broadcast `x`: the scaled value and the factor.
struct ScalarScale {
  Value scaled;     // x
  FloatAttr factor; // s
  bool divides;     // x / s rather than x * s

  /// `op` as such a scaling, or std::nullopt.
  static std::optional<ScalarScale> match(Operation *op) {
    if (!op || llvm::isa<FusedOp>(op->getParentOp()))
      return std::nullopt;
    auto same = [&](Value v) {
      return v.getType() == op->getResult(0).getType();
    };
    if (auto mul = llvm::dyn_cast<MulOp>(op)) {
      if (FloatAttr s = uniformFloat(mul.getRhs()); s && same(mul.getLhs()))
        return ScalarScale{mul.getLhs(), s, false};
      if (FloatAttr s = uniformFloat(mul.getLhs()); s && same(mul.getRhs()))
        return ScalarScale{mul.getRhs(), s, false};
    }
    if (auto div = llvm::dyn_cast<DivOp>(op))
      if (FloatAttr s = uniformFloat(div.getRhs()); s && same(div.getLhs()))
        return ScalarScale{div.getLhs(), s, true};
    return std::nullopt;
  }

  /// `value * s` (or `value / s`), with `s` as a rank-0 constant.
  Value applyTo(Value value, PatternRewriter &rewriter, Location loc) const {
    auto type = RankedTensorType::get({}, factor.getType());
    Value s = rewriter.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(type, Attribute(factor)));
    if (divides)
      return rewriter.create<DivOp>(loc, value, s);
    return rewriter.create<MulOp>(loc, value, s);
  }

  /// The factor the scaling multiplies by (1/s for a division).
  double multiplier() const {
    double s = factor.getValueAsDouble();
    return divides ? 1.0 / s : s;
  }
};

/// Why `linear` cannot take a scale into its weights, or null when it can.
const char *whyNotScalable(LinearOp linear) {
  if (llvm::isa<FusedOp>(linear->getParentOp()))
    return "the linear is inside an nn.fused group";
  return nullptr;
}

/// True when `op`'s only user is an attention reading it as query or key:
/// FoldScaleIntoAttention takes such a scale at no cost.
bool feedsAttentionScale(Operation *op) {
  if (!op->hasOneUse())
    return false;
  OpOperand &use = *op->getUses().begin();
  return llvm::isa<ScaledDotProductAttentionOp>(use.getOwner()) &&
         use.getOperandNumber() < 2;
}

/// linear(x, W, b) * s → linear(x, W * s, b * s).
template <typename OpTy>
struct FoldScaleOfLinear : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto scale = ScalarScale::match(op);
    if (!scale)
      return rewriter.notifyMatchFailure(op, "not a scaling by a uniform "
                                             "constant at the same shape");
    auto linear = scale->scaled.template getDefiningOp<LinearOp>();
    if (!linear)
      return rewriter.notifyMatchFailure(op, "the scaled value is not a "
                                             "linear's result");
    if (const char *why = whyNotScalable(linear))
      return rewriter.notifyMatchFailure(op, why);
    if (!linear->hasOneUse())
      return rewriter.notifyMatchFailure(op, "the linear's result has other "
                                             "users");
    if (feedsAttentionScale(op))
      return rewriter.notifyMatchFailure(
          op, "an attention takes this scale into its own for free");
    Value bias = linear.getBias();
    int64_t weightWork = numel(linear.getWeight()) + (bias ? numel(bias) : 0);
    if (numel(linear.getResult()) < weightWork)
      return rewriter.notifyMatchFailure(
          op, "scaling the weights costs more than scaling the result");

    LLVM_DEBUG(llvm::dbgs()
               << "nn-fold-scalar-mul: into the weights of " << linear << "\n");
    // The scaled weights go right before the linear, where its weights are
    // known to be available (so nn-merge-linears can still merge it).
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(linear);
    Value weight = scale->applyTo(linear.getWeight(), rewriter, loc);
    if (bias)
      bias = scale->applyTo(bias, rewriter, loc);
    rewriter.setInsertionPoint(op);
    rewriter.replaceOpWithNewOp<LinearOp>(op, op.getType(), linear.getInput(),
                                          weight, bias);
    rewriter.eraseOp(linear);
    return success();
  }
};

/// linear(x * s, W, b) → linear(x, W * s, b).
struct FoldScaledInputOfLinear : public OpRewritePattern<LinearOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LinearOp linear,
                                PatternRewriter &rewriter) const override {
    if (llvm::isa<FusedOp>(linear->getParentOp()))
      return rewriter.notifyMatchFailure(linear, "inside an nn.fused group");
    Operation *producer = linear.getInput().getDefiningOp();
    auto scale = ScalarScale::match(producer);
    if (!scale)
      return rewriter.notifyMatchFailure(
          linear, "the input is not a scaling by a uniform constant");
    if (!producer->hasOneUse())
      return rewriter.notifyMatchFailure(linear, "the scaled input has other "
                                                 "users");
    if (numel(linear.getInput()) < numel(linear.getWeight()))
      return rewriter.notifyMatchFailure(
          linear, "scaling the weight costs more than scaling the input");

    LLVM_DEBUG(llvm::dbgs()
               << "nn-fold-scalar-mul: input scale into " << linear << "\n");
    Value weight =
        scale->applyTo(linear.getWeight(), rewriter, producer->getLoc());
    rewriter.modifyOpInPlace(linear, [&] {
      linear.getInputMutable().set(scale->scaled);
      linear.getWeightMutable().set(weight);
    });
    rewriter.eraseOp(producer);
    return success();
  }
};

/// sdpa(q * s, k, v) scale σ → sdpa(q, k, v) scale σ·s; likewise for k.
struct FoldScaleIntoAttention
    : public OpRewritePattern<ScaledDotProductAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScaledDotProductAttentionOp op,
                                PatternRewriter &rewriter) const override {
    for (OpOperand *operand : {&op.getQueryMutable(), &op.getKeyMutable()}) {
      Operation *producer = operand->get().getDefiningOp();
      auto scale = ScalarScale::match(producer);
      if (!scale || !producer->hasOneUse())
        continue;
      LLVM_DEBUG(llvm::dbgs()
                 << "nn-fold-scalar-mul: into the scale of " << op << "\n");
      double newScale = op.getScaleOrDefault() * scale->multiplier();
      rewriter.modifyOpInPlace(op, [&] {
        operand->set(scale->scaled);
        op.setScaleAttr(rewriter.getF64FloatAttr(newScale));
      });
      rewriter.eraseOp(producer);
      return success();
    }
    return rewriter.notifyMatchFailure(
        op, "neither query nor key is a scaling by a uniform constant used "
            "only here");
  }
};

struct FoldScalarMulPass
    : public nn::impl::FoldScalarMulPassBase<FoldScalarMulPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldScaleOfLinear<MulOp>, FoldScaleOfLinear<DivOp>,
                 FoldScaledInputOfLinear, FoldScaleIntoAttention>(
        &getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
