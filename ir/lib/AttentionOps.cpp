//===- AttentionOps.cpp - nn attention ops --------------------------------===//
//
// Result-type inference (the verifier) of the ops in NNAttentionOps.td.
// Messages name the operands' shapes, since the tracer shows them to users
// prefixed with the module path.
//
//===----------------------------------------------------------------------===//

#include "OpUtils.h"
#include "nn/IR/NNOps.h"

#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::detail;

static constexpr const char *kSdpa = "scaled_dot_product_attention";

LogicalResult ScaledDotProductAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto query = llvm::cast<RankedTensorType>(adaptor.getQuery().getType());
  auto key = llvm::cast<RankedTensorType>(adaptor.getKey().getType());
  auto value = llvm::cast<RankedTensorType>(adaptor.getValue().getType());
  auto shapes = [&] {
    return "(query " + shapeOf(query) + ", key " + shapeOf(key) + ", value " +
           shapeOf(value) + ")";
  };
  if (query.getRank() < 2 || key.getRank() < 2 || value.getRank() < 2)
    return emitOptionalError(loc, kSdpa,
                             ": query, key and value need at least two "
                             "dimensions [..., seq, embed] ",
                             shapes());
  int64_t embed = query.getShape().back();
  if (key.getShape().back() != embed)
    return emitOptionalError(loc, kSdpa, ": query has embedding size ", embed,
                             " but key has ", key.getShape().back(), " ",
                             shapes());
  int64_t source = key.getShape()[key.getRank() - 2];
  if (value.getShape()[value.getRank() - 2] != source)
    return emitOptionalError(
        loc, kSdpa, ": key has ", source, " positions but value has ",
        value.getShape()[value.getRank() - 2], " ", shapes());
  auto elementType = sameElementType(loc, kSdpa, "query", query, "key", key);
  if (failed(elementType) ||
      failed(sameElementType(loc, kSdpa, "query", query, "value", value)))
    return failure();
  auto batch = inferBroadcastShape(loc,
                                   "scaled_dot_product_attention (batch "
                                   "dimensions of query and key)",
                                   query.getShape().drop_back(2),
                                   key.getShape().drop_back(2));
  if (failed(batch))
    return failure();
  batch = inferBroadcastShape(loc,
                              "scaled_dot_product_attention (batch "
                              "dimensions of query/key and value)",
                              *batch, value.getShape().drop_back(2));
  if (failed(batch))
    return failure();
  int64_t target = query.getShape()[query.getRank() - 2];

  if (Value mask = adaptor.getAttnMask()) {
    auto maskType = llvm::cast<RankedTensorType>(mask.getType());
    if (adaptor.getIsCausal())
      return emitOptionalError(loc, kSdpa,
                               ": attn_mask and causal exclude each other "
                               "(attn_mask ",
                               shapeOf(maskType), ")");
    Type maskElement = maskType.getElementType();
    if (!maskElement.isInteger(1) &&
        failed(sameElementType(loc, kSdpa, "query", query, "a float attn_mask",
                               maskType)))
      return failure();
    // The mask broadcasts to the scores [..., L, S] without growing them.
    SmallVector<int64_t> scores(*batch);
    scores.push_back(target);
    scores.push_back(source);
    auto broadcast =
        inferBroadcastShape(std::nullopt, kSdpa, scores, maskType.getShape());
    if (failed(broadcast) || !llvm::equal(*broadcast, scores))
      return emitOptionalError(loc, kSdpa, ": attn_mask ", shapeOf(maskType),
                               " does not broadcast to the attention scores ",
                               formatShape(scores), " ", shapes());
  }
  if (auto scale = adaptor.getScale();
      scale && !std::isfinite(scale->convertToDouble()))
    return emitOptionalError(loc, kSdpa, ": scale must be finite, got ",
                             std::to_string(scale->convertToDouble()));

  SmallVector<int64_t> shape = std::move(*batch);
  shape.push_back(target);
  shape.push_back(value.getShape().back());
  inferredReturnTypes.push_back(RankedTensorType::get(shape, *elementType));
  return success();
}

double ScaledDotProductAttentionOp::getScaleOrDefault() {
  if (std::optional<APFloat> scale = getScale())
    return scale->convertToDouble();
  int64_t embed =
      llvm::cast<RankedTensorType>(getQuery().getType()).getShape().back();
  return 1.0 / std::sqrt(static_cast<double>(embed));
}

LogicalResult ScaledDotProductAttentionOp::verify() {
  double p = getDropoutP().convertToDouble();
  if (!(p >= 0.0 && p <= 1.0))
    return emitOpError("dropout_p must be in [0, 1], got ") << p;
  return verifyRandomOperands(*this, getRng(), hasDropout(), getOffset(),
                              "dropout_p > 0");
}
