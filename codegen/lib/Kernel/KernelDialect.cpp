//===- KernelDialect.cpp - The nn_kernel dialect --------------------------===//
//
// Types, the epilogue attribute, and the ops' verifiers and effects
// (KernelOps.td).
//
//===----------------------------------------------------------------------===//

#include "nn/Kernel/KernelDialect.h"
#include "nn/Runtime/ArtifactDescription.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::nn::kernel;

namespace {

/// The most addends an epilogue applies (NN_RT_MAX_ADDENDS for the CPU).
constexpr int64_t kMaxAddends = 2;
/// The most batch dimensions a batched kernel walks (NN_RT_MAX_BATCH_DIMS).
constexpr int64_t kMaxBatchDims = 4;

ParseResult parseDims(AsmParser &parser, SmallVector<int64_t> &dims) {
  return parser.parseDimensionList(dims, /*allowDynamic=*/false,
                                   /*withTrailingX=*/false);
}

void printDims(AsmPrinter &printer, ArrayRef<int64_t> dims) {
  llvm::interleave(dims, printer.getStream(), "x");
}

} // namespace

#include "nn/Kernel/KernelDialect.cpp.inc"
#include "nn/Kernel/KernelEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "nn/Kernel/KernelTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "nn/Kernel/KernelAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "nn/Kernel/KernelOps.cpp.inc"

void KernelDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "nn/Kernel/KernelTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "nn/Kernel/KernelAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "nn/Kernel/KernelOps.cpp.inc"
      >();
}

ArrayRef<int64_t> mlir::nn::kernel::operandShape(Value value) {
  if (auto packed = llvm::dyn_cast<PackedType>(value.getType()))
    return packed.getShape();
  return llvm::cast<ShapedType>(value.getType()).getShape();
}

SmallVector<int64_t>
mlir::nn::kernel::permutedShape(Value value,
                                std::optional<ArrayRef<int64_t>> perm) {
  ArrayRef<int64_t> shape = operandShape(value);
  if (!perm)
    return SmallVector<int64_t>(shape);
  SmallVector<int64_t> result;
  for (int64_t d : *perm)
    result.push_back(shape[d]);
  return result;
}

//===----------------------------------------------------------------------===//
// EpilogueAttr
//===----------------------------------------------------------------------===//

// `add [image, row, col]`..., then `relu`, `clamp(min, max)` or
// `leaky_relu(slope)`, comma-separated.
Attribute EpilogueAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> strides;
  Activation activation = Activation::none;
  const llvm::fltSemantics &f32 = APFloat::IEEEsingle();
  APFloat min = APFloat::getInf(f32, /*Negative=*/true),
          max = APFloat::getInf(f32), slope = APFloat::getZero(f32);
  auto parseItem = [&]() -> ParseResult {
    llvm::SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return failure();
    if (activation != Activation::none)
      return parser.emitError(loc, "'")
             << keyword << "' after the activation, which comes last";
    if (keyword == "add") {
      SmallVector<int64_t> triple;
      if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
            return parser.parseInteger(triple.emplace_back());
          }))
        return failure();
      if (triple.size() != 3)
        return parser.emitError(loc, "an addend has 3 strides [image, row, "
                                     "col], not ")
               << triple.size();
      strides.append(triple);
      return success();
    }
    std::optional<Activation> parsed = symbolizeActivation(keyword);
    if (!parsed || *parsed == Activation::none)
      return parser.emitError(loc, "expected 'add', 'relu', 'clamp' or "
                                   "'leaky_relu', not '")
             << keyword << "'";
    activation = *parsed;
    if (activation == Activation::clamp)
      return failure(parser.parseLParen() || parser.parseFloat(f32, min) ||
                     parser.parseComma() || parser.parseFloat(f32, max) ||
                     parser.parseRParen());
    if (activation == Activation::leaky_relu)
      return failure(parser.parseLParen() || parser.parseFloat(f32, slope) ||
                     parser.parseRParen());
    return success();
  };
  if (parser.parseLess() || parser.parseCommaSeparatedList(parseItem) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<EpilogueAttr>(parser.getContext(), strides,
                                         activation, min, max, slope);
}

void EpilogueAttr::print(AsmPrinter &printer) const {
  SmallVector<std::function<void()>> items;
  for (int64_t i = 0, e = getNumAddends(); i < e; ++i)
    items.push_back([&, i] {
      printer << "add [";
      llvm::interleaveComma(getStrides(i), printer);
      printer << "]";
    });
  if (getActivation() != Activation::none)
    items.push_back([&] {
      printer << stringifyActivation(getActivation());
      if (getActivation() == Activation::clamp) {
        printer << "(";
        printer.printFloat(getMin());
        printer << ", ";
        printer.printFloat(getMax());
        printer << ")";
      } else if (getActivation() == Activation::leaky_relu) {
        printer << "(";
        printer.printFloat(getSlope());
        printer << ")";
      }
    });
  printer << "<";
  llvm::interleaveComma(items, printer, [](auto &item) { item(); });
  printer << ">";
}

LogicalResult EpilogueAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   ArrayRef<int64_t> addendStrides,
                                   Activation activation, APFloat min,
                                   APFloat max, APFloat slope) {
  if (addendStrides.size() % 3 != 0)
    return emitError() << "an epilogue's addend strides come in threes "
                          "[image, row, col], not "
                       << addendStrides.size();
  if (static_cast<int64_t>(addendStrides.size()) > 3 * kMaxAddends)
    return emitError() << "an epilogue applies at most " << kMaxAddends
                       << " addends, not " << addendStrides.size() / 3;
  if (llvm::any_of(addendStrides, [](int64_t s) { return s < 0; }))
    return emitError() << "an addend's strides are not negative";
  for (const APFloat *v : {&min, &max, &slope})
    if (&v->getSemantics() != &APFloat::IEEEsingle())
      return emitError() << "an epilogue's bounds and slope are f32";
  if (activation == Activation::clamp &&
      (min.isNaN() || max.isNaN() || max < min))
    return emitError() << "clamp's bounds are not an interval";
  if (activation == Activation::leaky_relu && !slope.isFinite())
    return emitError() << "leaky_relu's slope is not finite";
  return success();
}

//===----------------------------------------------------------------------===//
// Op helpers
//===----------------------------------------------------------------------===//

namespace {

int64_t product(ArrayRef<int64_t> sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

/// The output size of a convolution along spatial dimension `d` (of 2):
/// `padding` holds the low sides, then optionally the high sides.
int64_t convOutputSize(int64_t in, int64_t kernel, ArrayRef<int64_t> stride,
                       ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                       int d) {
  int64_t low = padding[d], high = padding[padding.size() == 4 ? 2 + d : d];
  int64_t reach = dilation[d] * (kernel - 1) + 1;
  int64_t span = in + low + high - reach;
  return span < 0 ? 0 : span / stride[d] + 1;
}

/// Stride, padding and dilation of a 2-D convolution: 2 values each (the
/// padding 2, or 4 with the high sides after the low ones), strides and
/// dilations >= 1, paddings >= 0.
LogicalResult verifyWindow(Operation *op, ArrayRef<int64_t> stride,
                           ArrayRef<int64_t> padding,
                           ArrayRef<int64_t> dilation) {
  for (auto [name, values, least] :
       {std::make_tuple("stride", stride, 1),
        std::make_tuple("padding", padding, 0),
        std::make_tuple("dilation", dilation, 1)}) {
    bool sized = values.size() == 2 ||
                 (values.size() == 4 && StringRef(name) == "padding");
    if (!sized)
      return op->emitOpError()
             << name << " has 2 values (H, W)"
             << (StringRef(name) == "padding" ? ", or 4 (low, then high)" : "")
             << ", not " << values.size();
    if (llvm::any_of(values, [&](int64_t v) { return v < least; }))
      return op->emitOpError()
             << name << " [" << values << "] is below " << least;
  }
  return success();
}

/// Every tensor-or-memref operand of `op` is a tensor (one result), or
/// every one is a memref (none); memrefs have static shapes.
LogicalResult verifyTensorsOrMemRefs(Operation *op) {
  bool tensors = false, memrefs = false;
  for (Value operand : op->getOperands()) {
    tensors |= llvm::isa<RankedTensorType>(operand.getType());
    if (auto memref = llvm::dyn_cast<MemRefType>(operand.getType())) {
      memrefs = true;
      if (!memref.hasStaticShape())
        return op->emitOpError("takes statically shaped memrefs, not ")
               << memref;
    }
    if (auto tensor = llvm::dyn_cast<RankedTensorType>(operand.getType()))
      if (!tensor.hasStaticShape())
        return op->emitOpError("takes statically shaped tensors, not ")
               << tensor;
  }
  if (tensors && memrefs)
    return op->emitOpError("takes tensors or memrefs, not both");
  return success();
}

/// Every memref operand the kernel of `op` reads or writes row-major has
/// an identity layout.
template <typename OpTy> LogicalResult verifyRowMajor(OpTy op) {
  for (OpOperand &operand : op->getOpOperands())
    if (auto memref = llvm::dyn_cast<MemRefType>(operand.get().getType()))
      if (op.needsRowMajor(operand) && !memref.getLayout().isIdentity())
        return op.emitOpError("needs operand ")
               << operand.getOperandNumber()
               << " row-major (an identity layout), not " << memref;
  return success();
}

/// The common checks of a destination-passing kernel op (after
/// verifyTensorsOrMemRefs): its row-major memrefs, and the epilogue's
/// addends, each covering the elements its strides reach for a result of
/// `images` × `rows` × `cols`.
template <typename OpTy>
LogicalResult verifyKernel(OpTy op, ValueRange addends, EpilogueAttr epilogue,
                           int64_t images, int64_t rows, int64_t cols) {
  if (failed(verifyRowMajor(op)))
    return failure();
  int64_t numAddends = epilogue ? epilogue.getNumAddends() : 0;
  if (static_cast<int64_t>(addends.size()) != numAddends)
    return op.emitOpError("has ")
           << addends.size() << " addends but its epilogue adds " << numAddends;
  if (images == 0 || rows == 0 || cols == 0)
    return success();
  for (auto [i, addend] : llvm::enumerate(addends)) {
    ArrayRef<int64_t> s = epilogue.getStrides(i);
    // Strides are not negative (EpilogueAttr::verify); saturate, not wrap.
    uint64_t last = 0;
    for (auto [count, stride] :
         llvm::zip(std::array<int64_t, 3>{images - 1, rows - 1, cols - 1}, s))
      last = llvm::SaturatingMultiplyAdd<uint64_t>(count, stride, last);
    auto elements = static_cast<uint64_t>(product(operandShape(addend)));
    if (last >= elements)
      return op.emitOpError("addend ")
             << i << " has " << elements << " elements, but its strides [" << s
             << "] reach element " << last;
  }
  return success();
}

/// `perm` (identity when absent) is a permutation of `rank` dimensions.
LogicalResult verifyPermutation(Operation *op, StringRef name,
                                std::optional<ArrayRef<int64_t>> perm,
                                int64_t rank) {
  if (!perm)
    return success();
  SmallVector<bool> seen(rank, false);
  if (static_cast<int64_t>(perm->size()) != rank)
    return op->emitOpError() << name << " has " << perm->size()
                             << " dimensions for an operand of rank " << rank;
  for (int64_t d : *perm) {
    if (d < 0 || d >= rank || seen[d])
      return op->emitOpError()
             << name << " [" << *perm << "] is not a permutation of " << rank
             << " dimensions";
    seen[d] = true;
  }
  return success();
}

/// The logical shape [batch..., rows, cols] of a batched result stored as
/// `stored` = permute(logical, perm).
SmallVector<int64_t> unpermuted(ArrayRef<int64_t> stored,
                                std::optional<ArrayRef<int64_t>> perm) {
  SmallVector<int64_t> logical(stored);
  if (perm)
    for (auto [i, d] : llvm::enumerate(*perm))
      logical[d] = stored[i];
  return logical;
}

/// `operand` (already permuted to `shape`) is a [batch..., rows, cols]
/// matrix the batched kernel can read for `logical`'s batch: rank >= 2, its
/// dims aligned right, each equal to the kernel's or 1 (broadcast: stride
/// 0, as an attention mask of one row for every query).
LogicalResult verifyBatchedOperand(Operation *op, StringRef name,
                                   ArrayRef<int64_t> shape,
                                   ArrayRef<int64_t> logical, int64_t rows,
                                   int64_t cols) {
  int64_t rank = shape.size(), full = logical.size();
  if (rank < 2 || rank > full)
    return op->emitOpError() << name << " has rank " << rank
                             << "; a batched operand has rank 2 to " << full;
  SmallVector<int64_t> expected(logical.drop_back(2));
  expected.append({rows, cols});
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = shape[d], want = expected[full - rank + d];
    if (size == want || size == 1)
      continue;
    if (d + 2 >= rank)
      return op->emitOpError()
             << name << " is [" << shape << "], but the kernel reads " << rows
             << "x" << cols << " matrices from it";
    return op->emitOpError()
           << name << " is [" << shape << "], which does not broadcast to "
           << "the batch [" << logical.drop_back(2) << "]";
  }
  return success();
}

/// Reads of every memref input, a write of the init (memrefs only: on
/// tensors an op has no effects, as linalg's).
void kernelEffects(
    Operation *op, OpOperand &init,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (!llvm::isa<MemRefType>(operand.get().getType()))
      continue;
    effects.emplace_back(MemoryEffects::Read::get(), &operand,
                         SideEffects::DefaultResource::get());
    if (&operand == &init)
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

bool GemmOp::needsRowMajor(OpOperand &operand) {
  return operand.getOperandNumber() >= 2; // the addends and the init
}

LogicalResult GemmOp::verify() {
  if (failed(verifyTensorsOrMemRefs(*this)))
    return failure();
  ArrayRef<int64_t> a = operandShape(getA()), b = operandShape(getB()),
                    c = operandShape(getInit());
  if (a.size() != 2 || b.size() != 2 || c.size() != 2)
    return emitOpError("multiplies matrices: a, b and the init have rank 2, "
                       "not ")
           << a.size() << ", " << b.size() << " and " << c.size();
  int64_t M = c[0], N = c[1];
  int64_t aM = getTransposeA() ? a[1] : a[0], K = getTransposeA() ? a[0] : a[1];
  if (std::optional<ArrayRef<int64_t>> windows = getBRowWindows()) {
    if (getTransposeB() || llvm::isa<PackedType>(getB().getType()))
      return emitOpError("reads row windows of a plain b, not a transposed or "
                         "packed one");
    int64_t count = static_cast<int64_t>(windows->size());
    if (count == 0 || aM != M || b[1] * count != N)
      return emitOpError("computes [")
             << M << ", " << N << "] from a [" << a << "] and " << count
             << " windows of b [" << b << "]: the shapes do not agree";
    for (int64_t row : *windows)
      if (row < 0 || row + K > b[0])
        return emitOpError("row window [")
               << row << ", " << row + K << ") is not inside b [" << b << "]";
    return verifyKernel(*this, getAddends(), getEpilogueAttr(), 1, M, N);
  }
  int64_t bK = getTransposeB() ? b[1] : b[0],
          bN = getTransposeB() ? b[0] : b[1];
  if (aM != M || bK != K || bN != N)
    return emitOpError("computes [")
           << M << ", " << N << "] from "
           << (getTransposeA() ? "transposed " : "") << "a [" << a << "] and "
           << (getTransposeB() ? "transposed " : "") << "b [" << b
           << "]: the shapes do not agree";
  return verifyKernel(*this, getAddends(), getEpilogueAttr(), 1, M, N);
}

void GemmOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, getInitMutable(), effects);
}

//===----------------------------------------------------------------------===//
// Conv2dOp
//===----------------------------------------------------------------------===//

bool Conv2dOp::needsRowMajor(OpOperand &operand) {
  // The direct convolutions read NCHW / OIHW and write NCHW row-major.
  return true;
}

LogicalResult Conv2dOp::verify() {
  if (failed(verifyTensorsOrMemRefs(*this)))
    return failure();
  ArrayRef<int64_t> x = operandShape(getInput()), w = operandShape(getWeight()),
                    y = operandShape(getInit());
  if (x.size() != 4 || w.size() != 4 || y.size() != 4)
    return emitOpError("convolves NCHW by OIHW into NCHW: ranks 4, not ")
           << x.size() << ", " << w.size() << " and " << y.size();
  if (failed(verifyWindow(*this, getStride(), getPadding(), getDilation())))
    return failure();
  if (getDepthwise()) {
    if (llvm::isa<PackedType>(getWeight().getType()))
      return emitOpError("is depthwise and reads its weight as it is, not "
                         "packed");
    if (w[0] != x[1] || w[1] != 1)
      return emitOpError("is depthwise over ")
             << x[1] << " channels: its weight is [" << x[1]
             << ", 1, KH, KW], not [" << w << "]";
  } else if (w[1] != x[1]) {
    return emitOpError("has an input of ")
           << x[1] << " channels but a weight [" << w << "] for " << w[1];
  }
  SmallVector<int64_t> expected = {x[0], w[0]};
  for (int i = 0; i < 2; ++i)
    expected.push_back(convOutputSize(x[2 + i], w[2 + i], getStride(),
                                      getPadding(), getDilation(), i));
  if (ArrayRef<int64_t>(expected) != y)
    return emitOpError("computes [")
           << expected << "] from an input [" << x << "] and a weight [" << w
           << "], not [" << y << "]";
  return verifyKernel(*this, getAddends(), getEpilogueAttr(), y[0], y[1],
                      y[2] * y[3]);
}

void Conv2dOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, getInitMutable(), effects);
}

//===----------------------------------------------------------------------===//
// MaxPool2dOp
//===----------------------------------------------------------------------===//

bool MaxPool2dOp::needsRowMajor(OpOperand &operand) { return true; }

LogicalResult MaxPool2dOp::verify() {
  if (failed(verifyTensorsOrMemRefs(*this)))
    return failure();
  ArrayRef<int64_t> x = operandShape(getInput()), y = operandShape(getInit());
  if (x.size() != 4 || y.size() != 4)
    return emitOpError("pools NCHW into NCHW: ranks 4, not ")
           << x.size() << " and " << y.size();
  ArrayRef<int64_t> kernel = getKernel(), padding = getPadding();
  if (kernel.size() != 2 ||
      llvm::any_of(kernel, [](int64_t k) { return k < 1; }))
    return emitOpError("kernel is 2 sizes (H, W) of at least 1, not [")
           << kernel << "]";
  if (padding.size() != 4)
    return emitOpError("padding has 4 values (top, left, bottom, right), "
                       "not ")
           << padding.size();
  if (failed(verifyWindow(*this, getStride(), padding, getDilation())))
    return failure();
  SmallVector<int64_t> expected = {x[0], x[1]};
  for (int i = 0; i < 2; ++i)
    expected.push_back(convOutputSize(x[2 + i], kernel[i], getStride(), padding,
                                      getDilation(), i));
  if (ArrayRef<int64_t>(expected) != y)
    return emitOpError("computes [")
           << expected << "] from an input [" << x << "], not [" << y << "]";
  return success();
}

void MaxPool2dOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, getInitMutable(), effects);
}

//===----------------------------------------------------------------------===//
// BatchMatmulOp
//===----------------------------------------------------------------------===//

bool BatchMatmulOp::needsRowMajor(OpOperand &operand) {
  return operand.getOperandNumber() >= 2; // the addends and the init
}

SmallVector<int64_t> BatchMatmulOp::getLogicalShape() {
  return unpermuted(operandShape(getInit()), getOutPerm());
}

LogicalResult BatchMatmulOp::verify() {
  if (failed(verifyTensorsOrMemRefs(*this)))
    return failure();
  int64_t rank = operandShape(getInit()).size();
  if (rank < 3 || rank > 2 + kMaxBatchDims)
    return emitOpError("has 1 to ")
           << kMaxBatchDims << " batch dimensions, not " << rank - 2;
  for (auto [name, value, perm] :
       {std::make_tuple("a_perm", getA(), getAPerm()),
        std::make_tuple("b_perm", getB(), getBPerm()),
        std::make_tuple("out_perm", getInit(), getOutPerm())})
    if (failed(
            verifyPermutation(*this, name, perm, operandShape(value).size())))
      return failure();
  if (auto perm = getOutPerm(); perm && perm->back() != rank - 1)
    return emitOpError("writes rows contiguous: out_perm keeps the last "
                       "dimension last");
  SmallVector<int64_t> logical = getLogicalShape();
  int64_t M = logical[rank - 2], N = logical[rank - 1];
  SmallVector<int64_t> a = permutedShape(getA(), getAPerm()),
                       b = permutedShape(getB(), getBPerm());
  if (a.size() < 2)
    return emitOpError("a has rank ") << a.size();
  int64_t K = a.back();
  if (failed(verifyBatchedOperand(*this, "a", a, logical, M, K)) ||
      failed(verifyBatchedOperand(*this, "b", b, logical, K, N)))
    return failure();
  return verifyKernel(*this, getAddends(), getEpilogueAttr(),
                      product(ArrayRef<int64_t>(logical).drop_back(2)), M, N);
}

void BatchMatmulOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, getInitMutable(), effects);
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

bool AttentionOp::needsRowMajor(OpOperand &operand) {
  return &operand == &getInitMutable();
}

SmallVector<int64_t> AttentionOp::getLogicalShape() {
  return unpermuted(operandShape(getInit()), getOutPerm());
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyTensorsOrMemRefs(*this)))
    return failure();
  int64_t rank = operandShape(getInit()).size();
  if (rank < 2 || rank > 2 + kMaxBatchDims)
    return emitOpError("has 0 to ")
           << kMaxBatchDims << " batch dimensions, not " << rank - 2;
  for (auto [name, value, perm] :
       {std::make_tuple("query_perm", getQuery(), getQueryPerm()),
        std::make_tuple("key_perm", getKey(), getKeyPerm()),
        std::make_tuple("value_perm", getValue(), getValuePerm()),
        std::make_tuple("out_perm", getInit(), getOutPerm())})
    if (failed(
            verifyPermutation(*this, name, perm, operandShape(value).size())))
      return failure();
  if (getMask() && failed(verifyPermutation(*this, "mask_perm", getMaskPerm(),
                                            operandShape(getMask()).size())))
    return failure();
  if (!getMask() && getMaskPerm())
    return emitOpError("has a mask_perm but no mask");
  if (getMask() && getCausal())
    return emitOpError("is causal or masked, not both");
  if (auto perm = getOutPerm(); perm && perm->back() != rank - 1)
    return emitOpError("writes rows contiguous: out_perm keeps the last "
                       "dimension last");
  SmallVector<int64_t> logical = getLogicalShape();
  SmallVector<int64_t> q = permutedShape(getQuery(), getQueryPerm()),
                       k = permutedShape(getKey(), getKeyPerm()),
                       v = permutedShape(getValue(), getValuePerm());
  if (k.size() < 2 || v.size() < 2)
    return emitOpError("reads keys and values as matrices");
  int64_t L = logical[rank - 2], Ev = logical[rank - 1], S = k[k.size() - 2],
          E = k.back();
  if (failed(verifyBatchedOperand(*this, "query", q, logical, L, E)) ||
      failed(verifyBatchedOperand(*this, "key", k, logical, S, E)) ||
      failed(verifyBatchedOperand(*this, "value", v, logical, S, Ev)))
    return failure();
  if (getMask() && failed(verifyBatchedOperand(
                       *this, "mask", permutedShape(getMask(), getMaskPerm()),
                       logical, L, S)))
    return failure();
  return verifyRowMajor(*this);
}

void AttentionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  kernelEffects(*this, getInitMutable(), effects);
}

//===----------------------------------------------------------------------===//
// Packing
//===----------------------------------------------------------------------===//

namespace {

LogicalResult verifySlot(Operation *op, int64_t slot) {
  if (slot < 0 || slot > std::numeric_limits<int32_t>::max())
    return op->emitOpError("names context slot ")
           << slot << "; slots count from 0 to 2^31 - 1";
  return success();
}

/// A packing reads its source and writes its slot.
void packEffects(
    Operation *op, OpOperand &source,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (llvm::isa<MemRefType>(source.get().getType()))
    effects.emplace_back(MemoryEffects::Read::get(), &source,
                         SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
}

} // namespace

LogicalResult PackGemmBOp::verify() {
  if (operandShape(getSource()).size() != 2)
    return emitOpError("packs a matrix, not a tensor of rank ")
           << operandShape(getSource()).size();
  return verifySlot(*this, getSlot());
}

void PackGemmBOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  packEffects(*this, getSourceMutable(), effects);
}

SmallVector<int64_t> PackConv2dWeightOp::getOutputSize() {
  ArrayRef<int64_t> w = operandShape(getSource());
  SmallVector<int64_t> size;
  for (int i = 0; i < 2; ++i)
    size.push_back(convOutputSize(getInputSize()[1 + i], w[2 + i], getStride(),
                                  getPadding(), getDilation(), i));
  return size;
}

LogicalResult PackConv2dWeightOp::verify() {
  ArrayRef<int64_t> w = operandShape(getSource());
  if (w.size() != 4)
    return emitOpError("packs an OIHW weight, not a tensor of rank ")
           << w.size();
  if (getInputSize().size() != 3 || getInputSize()[0] != w[1])
    return emitOpError("packs a weight [")
           << w << "] for inputs [C, H, W] of C = " << w[1] << ", not ["
           << getInputSize() << "]";
  if (failed(verifyWindow(*this, getStride(), getPadding(), getDilation())))
    return failure();
  return verifySlot(*this, getSlot());
}

void PackConv2dWeightOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  packEffects(*this, getSourceMutable(), effects);
}

LogicalResult PackedOp::verify() { return verifySlot(*this, getSlot()); }

void PackedOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(),
                       SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// WriteStateOp
//===----------------------------------------------------------------------===//

LogicalResult WriteStateOp::verify() {
  auto function = (*this)->getParentOfType<FunctionOpInterface>();
  auto argument = llvm::dyn_cast<BlockArgument>(getState());
  if (!function || !argument ||
      argument.getOwner() != &function.getFunctionBody().front())
    return emitOpError("writes into an argument of the enclosing function "
                       "(the caller's storage of the state), not a value "
                       "computed in it");
  return success();
}

void WriteStateOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
}
