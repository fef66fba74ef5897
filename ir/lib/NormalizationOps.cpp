//===- NormalizationOps.cpp - nn normalization and reductions ---===//
//
// Verifiers, result-type inference and folders of the ops in
// NNNormalizationOps.td. As everywhere in the dialect, inference is the
// verifier: messages name the op, what is wrong and the shapes involved.
//
//===----------------------------------------------------------------------===//

#include "OpUtils.h"
#include "nn/IR/NNOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::detail;

/// "[0, -1]" for error messages.
static std::string formatDims(ArrayRef<int64_t> dims) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(dims))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

/// The dims a reduction over `dims` of `shape` reduces (every dim when `dims`
/// is empty), or a located error for an out-of-range or repeated dim.
static FailureOr<llvm::SmallBitVector>
reducedDimsMask(std::optional<Location> loc, StringRef opName,
                ArrayRef<int64_t> dims, ArrayRef<int64_t> shape) {
  int64_t rank = shape.size();
  llvm::SmallBitVector mask(rank, dims.empty());
  for (int64_t d : dims) {
    // A scalar accepts dim 0 and -1, as in PyTorch.
    int64_t bound = std::max<int64_t>(rank, 1);
    if (d < -bound || d >= bound)
      return emitOptionalError(
          loc, opName, ": dim ", d, " is out of range for input ",
          formatShape(shape), " (expected -", bound, " to ", bound - 1, ")");
    if (rank == 0)
      continue;
    int64_t n = d < 0 ? d + rank : d;
    if (mask.test(n))
      return emitOptionalError(
          loc, opName, ": dim ", n, " appears more than once in dims ",
          formatDims(dims), " (input ", formatShape(shape), ")");
    mask.set(n);
  }
  return mask;
}

/// The shape left after reducing `mask` of `shape`.
static SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape,
                                         const llvm::SmallBitVector &mask,
                                         bool keepdim) {
  SmallVector<int64_t> result;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (!mask.test(i))
      result.push_back(d);
    else if (keepdim)
      result.push_back(1);
  }
  return result;
}

template <typename OpAdaptor>
static LogicalResult inferReduction(std::optional<Location> loc,
                                    StringRef opName, OpAdaptor adaptor,
                                    SmallVectorImpl<Type> &inferred) {
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  auto mask = reducedDimsMask(loc, opName, adaptor.getDims(), input.getShape());
  if (failed(mask))
    return failure();
  inferred.push_back(RankedTensorType::get(
      reducedShape(input.getShape(), *mask, adaptor.getKeepdim()),
      input.getElementType()));
  return success();
}

#define NN_REDUCTION_INFERENCE(OpClass, name)                                  \
  LogicalResult OpClass::inferReturnTypes(                                     \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferReduction(loc, name, adaptor, inferred);                       \
  }

NN_REDUCTION_INFERENCE(SumOp, "sum")
NN_REDUCTION_INFERENCE(MeanOp, "mean")
NN_REDUCTION_INFERENCE(AmaxOp, "amax")
NN_REDUCTION_INFERENCE(AminOp, "amin")
NN_REDUCTION_INFERENCE(VarOp, "var")
#undef NN_REDUCTION_INFERENCE

//===----------------------------------------------------------------------===//
// ArgmaxOp / ArgminOp
//===----------------------------------------------------------------------===//

template <typename OpAdaptor>
static LogicalResult inferArgReduction(MLIRContext *context,
                                       std::optional<Location> loc,
                                       StringRef opName, OpAdaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  auto i64 = IntegerType::get(context, 64);
  if (input.getNumElements() == 0)
    return emitOptionalError(loc, opName, ": input ", shapeOf(input),
                             " is empty, so it has no extreme element");
  std::optional<int64_t> dim;
  if (auto attr = adaptor.getDimAttr())
    dim = attr.getInt();
  if (!dim) {
    // Flattened: a scalar, or all-ones dims with keepdim.
    SmallVector<int64_t> shape(adaptor.getKeepdim() ? input.getRank() : 0, 1);
    inferred.push_back(RankedTensorType::get(shape, i64));
    return success();
  }
  auto mask = reducedDimsMask(loc, opName, {*dim}, input.getShape());
  if (failed(mask))
    return failure();
  inferred.push_back(RankedTensorType::get(
      reducedShape(input.getShape(), *mask, adaptor.getKeepdim()), i64));
  return success();
}

LogicalResult ArgmaxOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferArgReduction(context, loc, "argmax", adaptor, inferred);
}

LogicalResult ArgminOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferArgReduction(context, loc, "argmin", adaptor, inferred);
}

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

/// Checks that the optional `value` ("weight"/"bias") has shape `expected`
/// and the input's element type.
static LogicalResult checkAffine(std::optional<Location> loc, StringRef opName,
                                 StringRef role, Value value,
                                 ArrayRef<int64_t> expected,
                                 RankedTensorType input, StringRef what) {
  if (!value)
    return success();
  auto type = llvm::cast<RankedTensorType>(value.getType());
  if (type.getShape() != expected)
    return emitOptionalError(loc, opName, ": ", role, " must be ",
                             formatShape(expected), " (", what, "), got ",
                             shapeOf(type), " (input ", shapeOf(input), ")");
  return sameElementType(loc, opName, "input", input, role, type);
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> normalized = adaptor.getNormalizedShape();
  if (normalized.empty())
    return emitOptionalError(loc, "layer_norm: normalized_shape is empty; it "
                                  "names at least the last dimension");
  int64_t rank = input.getRank();
  int64_t n = normalized.size();
  if (n > rank || input.getShape().take_back(n) != normalized)
    return emitOptionalError(loc, "layer_norm: input ", shapeOf(input),
                             " does not end with normalized_shape ",
                             formatShape(normalized));
  if (adaptor.getEps().convertToDouble() < 0)
    return emitOptionalError(loc, "layer_norm: eps must be >= 0, got ",
                             adaptor.getEps().convertToDouble());
  for (auto [role, value] :
       {std::pair<StringRef, Value>{"weight", adaptor.getWeight()},
        {"bias", adaptor.getBias()}})
    if (failed(checkAffine(loc, "layer_norm", role, value, normalized, input,
                           "normalized_shape")))
      return failure();
  inferred.push_back(input);
  return success();
}

/// Input [N, C, *] of the channel-wise normalizations.
static LogicalResult checkChannelInput(std::optional<Location> loc,
                                       StringRef opName,
                                       RankedTensorType input) {
  if (input.getRank() < 2)
    return emitOptionalError(loc, opName,
                             ": input must be [N, C, *] (at "
                             "least 2-D), got ",
                             shapeOf(input));
  return success();
}

LogicalResult GroupNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  if (failed(checkChannelInput(loc, "group_norm", input)))
    return failure();
  int64_t channels = input.getDimSize(1);
  int64_t groups = adaptor.getNumGroups();
  if (groups <= 0 || channels % groups != 0)
    return emitOptionalError(loc, "group_norm: ", channels,
                             " channels do not split into ", groups,
                             " groups (input ", shapeOf(input), ")");
  if (adaptor.getEps().convertToDouble() < 0)
    return emitOptionalError(loc, "group_norm: eps must be >= 0, got ",
                             adaptor.getEps().convertToDouble());
  for (auto [role, value] :
       {std::pair<StringRef, Value>{"weight", adaptor.getWeight()},
        {"bias", adaptor.getBias()}})
    if (failed(checkAffine(loc, "group_norm", role, value, {channels}, input,
                           "one per channel")))
      return failure();
  inferred.push_back(input);
  return success();
}

/// Checks the per-channel operands of batch_norm / batch_norm_training.
static LogicalResult checkBatchNormOperands(
    std::optional<Location> loc, StringRef opName, RankedTensorType input,
    ArrayRef<std::pair<StringRef, Value>> perChannel, double eps) {
  if (failed(checkChannelInput(loc, opName, input)))
    return failure();
  if (eps < 0)
    return emitOptionalError(loc, opName, ": eps must be >= 0, got ", eps);
  if (input.getNumElements() == 0)
    return emitOptionalError(loc, opName, ": input ", shapeOf(input),
                             " is empty");
  int64_t channels = input.getDimSize(1);
  for (auto [role, value] : perChannel)
    if (failed(checkAffine(loc, opName, role, value, {channels}, input,
                           "one per channel")))
      return failure();
  return success();
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  if (failed(checkBatchNormOperands(loc, "batch_norm", input,
                                    {{"mean", adaptor.getMean()},
                                     {"var", adaptor.getVar()},
                                     {"weight", adaptor.getWeight()},
                                     {"bias", adaptor.getBias()}},
                                    adaptor.getEps().convertToDouble())))
    return failure();
  inferred.push_back(input);
  return success();
}

LogicalResult BatchNormTrainingOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  if (input.getRank() >= 2 && input.getNumElements() == input.getDimSize(1))
    return emitOptionalError(loc,
                             "batch_norm_training: expected more than 1 "
                             "value per channel when training, got "
                             "input ",
                             shapeOf(input));
  if (failed(checkBatchNormOperands(loc, "batch_norm_training", input,
                                    {{"running_mean", adaptor.getRunningMean()},
                                     {"running_var", adaptor.getRunningVar()},
                                     {"weight", adaptor.getWeight()},
                                     {"bias", adaptor.getBias()}},
                                    adaptor.getEps().convertToDouble())))
    return failure();
  inferred.push_back(input);
  inferred.push_back(adaptor.getRunningMean().getType());
  inferred.push_back(adaptor.getRunningVar().getType());
  if (Value count = adaptor.getNumBatchesTracked())
    inferred.push_back(count.getType());
  return success();
}

LogicalResult BatchNormTrainingOp::verify() {
  Value count = getNumBatchesTracked();
  if (!getMomentum() && !count)
    return emitOpError("needs num_batches_tracked when momentum is absent "
                       "(momentum=None averages over the batches seen)");
  if (count && llvm::cast<RankedTensorType>(count.getType()).getRank() != 0)
    return emitOpError("num_batches_tracked must be a scalar, got ")
           << shapeOf(count.getType());
  if (auto momentum = getMomentum()) {
    double m = momentum->convertToDouble();
    if (!(m >= 0.0 && m <= 1.0))
      return emitOpError("momentum must be in [0, 1], got ") << m;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// StoreOp
//===----------------------------------------------------------------------===//

LogicalResult StoreOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *decl = symbolTable.lookupNearestSymbolFrom(*this, getNameAttr());
  if (!decl)
    return emitOpError("writes '") << getName() << "', which is not declared";
  Type declared = declaredStateType(decl);
  if (!declared)
    return emitOpError("writes '")
           << getName() << "', which is not an nn.buffer or nn.parameter";
  if (declared != getValue().getType())
    return emitOpError("value type ")
           << getValue().getType() << " differs from the declared type "
           << declared << " of '" << getName() << "'";
  return success();
}
