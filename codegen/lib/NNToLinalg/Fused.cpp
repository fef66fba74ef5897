//===- Fused.cpp - nn.fused to linalg -------------------------------------===//
//
// An nn.fused group becomes its anchor's lowering (the conv, linear or
// matmul is re-created outside the group and converted by its own pattern)
// followed by ONE linalg.generic that evaluates the whole pointwise epilogue
// per element: the anchor's result and the group's other inputs are read
// through broadcasting indexing maps, and every epilogue op is one scalar
// expression (buildPointwiseScalar). No intermediate of the epilogue is
// materialized.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::nn;

namespace {

struct FusedOpLowering : public OpRewritePattern<FusedOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FusedOp op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    // Values of the body → values outside: arguments are the inputs, the
    // anchor's result its re-created twin.
    IRMapping outside;
    for (auto [arg, input] : llvm::zip(body.getArguments(), op.getInputs()))
      outside.map(arg, input);
    Operation *anchor = op.getAnchor();
    SmallVector<ScalarBodyOpInterface> epilogue;
    for (Operation &inner : body.without_terminator()) {
      if (&inner == anchor)
        continue;
      ScalarBodyOpInterface scalar = scalarBodyOf(&inner);
      if (!scalar)
        return failure();
      epilogue.push_back(scalar);
    }
    if (anchor)
      rewriter.clone(*anchor, outside);
    llvm::SmallPtrSet<Operation *, 8> inEpilogue;
    for (ScalarBodyOpInterface inner : epilogue)
      inEpilogue.insert(inner);
    Value yielded = op.getYielded();
    if (!inEpilogue.contains(yielded.getDefiningOp())) {
      // Nothing after the anchor (or the group returns an input).
      rewriter.replaceOp(op, outside.lookup(yielded));
      return success();
    }

    // The epilogue's leaves: what it reads from outside itself.
    llvm::SetVector<Value> leaves;
    for (ScalarBodyOpInterface inner : epilogue)
      for (Value operand : inner->getOperands())
        if (!inEpilogue.contains(operand.getDefiningOp()))
          leaves.insert(operand);
    SmallVector<Value> leafValues;
    for (Value leaf : leaves)
      leafValues.push_back(outside.lookup(leaf));

    Value result = buildBroadcastingElementwise(
        rewriter, op.getLoc(), llvm::cast<RankedTensorType>(op.getType()),
        leafValues, [&](OpBuilder &b, Location loc, ValueRange scalars) {
          IRMapping scalar;
          for (auto [leaf, element] : llvm::zip(leaves, scalars))
            scalar.map(leaf, element);
          for (ScalarBodyOpInterface inner : epilogue) {
            SmallVector<Value> operands;
            for (Value operand : inner->getOperands())
              operands.push_back(scalar.lookup(operand));
            scalar.map(
                inner->getResult(0),
                buildPointwiseScalar(b, inner->getLoc(), inner, operands));
          }
          return scalar.lookup(yielded);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::nn::populateFusedPatterns(RewritePatternSet &patterns) {
  patterns.add<FusedOpLowering>(patterns.getContext());
}
