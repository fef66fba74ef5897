//===- NNOps.cpp - nn dialect verifiers, type inference, folders ----------===//
//
// Result-type inference is the verifier of every shape-changing op: the
// InferTypeOpInterface check compares the inferred type with the declared
// one. Messages name the op and both operands' shapes, since the tracer shows
// them to users prefixed with the module path.
//
//===----------------------------------------------------------------------===//

#include "nn/IR/NNOps.h"
#include "OpUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::detail;

std::string mlir::nn::formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return os.str();
}

FailureOr<SmallVector<int64_t>>
mlir::nn::inferBroadcastShape(std::optional<Location> loc, StringRef opName,
                              ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align from the trailing dimension; missing leading dims count as 1.
    int64_t l = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t r = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (l != r && l != 1 && r != 1)
      return emitOptionalError(
          loc, opName, ": shapes ", formatShape(lhs), " and ", formatShape(rhs),
          " do not broadcast (dimension ", i, ": ", l, " vs ", r, ")");
    result[i] = l == 1 ? r : l;
  }
  return result;
}

//===----------------------------------------------------------------------===//
// ParameterOp / BufferOp / LoadOp
//===----------------------------------------------------------------------===//

/// Checks the state_dict key and that an embedded value has the declared
/// type.
static LogicalResult verifyState(Operation *op, StringRef name, Type type,
                                 std::optional<ElementsAttr> value) {
  if (name.empty())
    return op->emitOpError("needs a non-empty state_dict key");
  if (name.front() == '.' || name.back() == '.' || name.contains(".."))
    return op->emitOpError("state_dict key '")
           << name << "' has an empty path component";
  if (value && value->getType() != type)
    return op->emitOpError("value of type ")
           << value->getType() << " differs from the declared type " << type;
  return success();
}

bool mlir::nn::isStateUsed(ModuleOp module, StringAttr name) {
  return llvm::any_of(module.getOps<FunctionOpInterface>(),
                      [&](FunctionOpInterface func) {
                        return !SymbolTable::symbolKnownUseEmpty(name, func);
                      });
}

llvm::DenseSet<StringAttr> mlir::nn::writtenState(ModuleOp module) {
  llvm::DenseSet<StringAttr> written;
  module.walk(
      [&](StoreOp store) { written.insert(store.getNameAttr().getAttr()); });
  return written;
}

Type mlir::nn::declaredStateType(Operation *declaration) {
  if (auto param = llvm::dyn_cast_or_null<ParameterOp>(declaration))
    return param.getType();
  if (auto buffer = llvm::dyn_cast_or_null<BufferOp>(declaration))
    return buffer.getType();
  return Type();
}

ElementsAttr
mlir::nn::embeddedValue(Operation *declaration,
                        const llvm::DenseSet<StringAttr> &written) {
  auto value = declaration->getAttrOfType<ElementsAttr>("value");
  auto name =
      declaration->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
  return value && !written.contains(name) ? value : ElementsAttr();
}

LogicalResult ParameterOp::verify() {
  return verifyState(*this, getSymName(), getType(), getValue());
}

LogicalResult BufferOp::verify() {
  return verifyState(*this, getSymName(), getType(), getValue());
}

LogicalResult LoadOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *decl = symbolTable.lookupNearestSymbolFrom(*this, getNameAttr());
  if (!decl)
    return emitOpError("reads '") << getName() << "', which is not declared";
  Type declared = declaredStateType(decl);
  if (!declared)
    return emitOpError("reads '")
           << getName() << "', which is not an nn.parameter or nn.buffer";
  if (declared != getType())
    return emitOpError("result type ")
           << getType() << " differs from the declared type " << declared
           << " of '" << getName() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// LinearOp
//===----------------------------------------------------------------------===//

LogicalResult
LinearOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                           Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = llvm::cast<RankedTensorType>(adaptor.getWeight().getType());
  if (input.getRank() < 1)
    return emitOptionalError(loc, "linear: input must have at least one "
                                  "dimension, got a scalar");
  if (weight.getRank() != 2)
    return emitOptionalError(loc, "linear: weight must be 2-D [out, in], got ",
                             shapeOf(weight));
  int64_t inFeatures = input.getShape().back();
  if (inFeatures != weight.getDimSize(1))
    return emitOptionalError(loc, "linear: input has ", inFeatures,
                             " features, weight expects ", weight.getDimSize(1),
                             " (input ", shapeOf(input), ", weight ",
                             shapeOf(weight), ")");
  auto elementType =
      sameElementType(loc, "linear", "input", input, "weight", weight);
  if (failed(elementType))
    return failure();
  if (Value bias = adaptor.getBias()) {
    auto biasType = llvm::cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1 ||
        biasType.getDimSize(0) != weight.getDimSize(0))
      return emitOptionalError(loc, "linear: bias must be [",
                               weight.getDimSize(0), "] to match weight ",
                               shapeOf(weight), ", got ", shapeOf(biasType));
    if (failed(
            sameElementType(loc, "linear", "input", input, "bias", biasType)))
      return failure();
  }
  SmallVector<int64_t> shape(input.getShape());
  shape.back() = weight.getDimSize(0);
  inferredReturnTypes.push_back(RankedTensorType::get(shape, *elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult
MatmulOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                           Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  auto lhs = llvm::cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = llvm::cast<RankedTensorType>(adaptor.getRhs().getType());
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return emitOptionalError(loc,
                             "matmul: both operands need at least two "
                             "dimensions (lhs ",
                             shapeOf(lhs), ", rhs ", shapeOf(rhs), ")");
  int64_t k = lhs.getShape().back();
  int64_t rhsK = rhs.getShape()[rhs.getRank() - 2];
  if (k != rhsK)
    return emitOptionalError(loc, "matmul: lhs has ", k,
                             " columns but rhs has ", rhsK, " rows (lhs ",
                             shapeOf(lhs), ", rhs ", shapeOf(rhs), ")");
  auto elementType = sameElementType(loc, "matmul", "lhs", lhs, "rhs", rhs);
  if (failed(elementType))
    return failure();
  auto batch = inferBroadcastShape(loc, "matmul (batch dimensions)",
                                   lhs.getShape().drop_back(2),
                                   rhs.getShape().drop_back(2));
  if (failed(batch))
    return failure();
  SmallVector<int64_t> shape = std::move(*batch);
  shape.push_back(lhs.getShape()[lhs.getRank() - 2]);
  shape.push_back(rhs.getShape().back());
  inferredReturnTypes.push_back(RankedTensorType::get(shape, *elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// Broadcasting binary ops
//===----------------------------------------------------------------------===//

/// x + 0 → x when the zero is a splat constant that does not broadcast x.
OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  auto isZero = [](Attribute attr) {
    auto splat = llvm::dyn_cast_if_present<SplatElementsAttr>(attr);
    if (!splat)
      return false;
    if (llvm::isa<FloatType>(splat.getElementType()))
      return splat.getSplatValue<APFloat>().isZero();
    return splat.getSplatValue<APInt>().isZero();
  };
  if (isZero(adaptor.getRhs()) && getLhs().getType() == getType())
    return getLhs();
  if (isZero(adaptor.getLhs()) && getRhs().getType() == getType())
    return getRhs();
  return {};
}

//===----------------------------------------------------------------------===//
// DropoutOp
//===----------------------------------------------------------------------===//

LogicalResult DropoutOp::verify() {
  double p = getP().convertToDouble();
  if (!(p >= 0.0 && p <= 1.0))
    return emitOpError("probability p must be in [0, 1], got ") << p;
  return detail::verifyRandomOperands(*this, getRng(), isActive(), getOffset(),
                                      "training with p > 0");
}

OpFoldResult DropoutOp::fold(FoldAdaptor) {
  if (!isActive())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// GradientHookOp
//===----------------------------------------------------------------------===//

LogicalResult GradientHookOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location>,
                                               GradientHookOpAdaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  for (Value input : adaptor.getInputs())
    types.push_back(input.getType());
  return success();
}

LogicalResult GradientHookOp::verify() {
  if (getInputs().empty())
    return emitOpError("hooks no value");
  if (getSiteAttr().getInt() < 0)
    return emitOpError("site must be non-negative, got ")
           << getSiteAttr().getInt();
  return success();
}

LogicalResult GradientHookOp::fold(FoldAdaptor,
                                   SmallVectorImpl<OpFoldResult> &results) {
  // Forward it is the identity; only nn-autodiff gives it a meaning, and
  // the frontend differentiates before anything folds.
  for (Value input : getInputs())
    results.push_back(input);
  return success();
}

//===----------------------------------------------------------------------===//
// FusedOp
//===----------------------------------------------------------------------===//

bool FusedOp::isAnchorOp(Operation *op) {
  return llvm::isa<ConvOp, LinearOp, MatmulOp>(op);
}

Operation *FusedOp::getAnchor() {
  Operation &first = getBody().front().front();
  return isAnchorOp(&first) ? &first : nullptr;
}

Value FusedOp::getYielded() {
  return llvm::cast<YieldOp>(getBody().front().getTerminator()).getValue();
}

LogicalResult FusedOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments for " << getInputs().size()
           << " inputs";
  for (auto [i, arg, input] : llvm::enumerate(body.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError("body argument #")
             << i << " has type " << arg.getType() << ", input has "
             << input.getType();
  auto yield = llvm::dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with nn.yield");
  if (yield.getValue().getType() != getType())
    return emitOpError("yields ")
           << yield.getValue().getType() << " but the result is " << getType();
  auto resultShape = llvm::cast<RankedTensorType>(getType()).getShape();
  for (Operation &op : body.without_terminator()) {
    if (&op == getAnchor())
      continue;
    if (!op.hasTrait<OpTrait::nn::Pointwise>())
      return op.emitOpError("cannot be in an nn.fused group: only a leading "
                            "conv, linear or matmul and pointwise ops can");
    auto type = llvm::cast<RankedTensorType>(op.getResult(0).getType());
    if (type.getShape() != resultShape)
      return op.emitOpError("computes ")
             << formatShape(type.getShape())
             << " inside an nn.fused group of shape "
             << formatShape(resultShape)
             << ": every epilogue value must have the group's shape";
  }
  return success();
}

#define GET_OP_CLASSES
#include "nn/IR/NNOps.cpp.inc"
