//===- ShapeOps.cpp - nn reshaping, slicing, joining and indexing ---===//
//
// Verifiers, result-type inference and folders of the ops in
// NNShapeOps.td. As everywhere in the dialect, inference is the verifier:
// errors name the op, what is wrong and the shapes involved, in the words
// the tracer shows users (prefixed with the module path).
//
//===----------------------------------------------------------------------===//

#include "OpUtils.h"
#include "nn/IR/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nn;
using namespace mlir::nn::detail;

namespace {

RankedTensorType rankedType(Value value) {
  return llvm::cast<RankedTensorType>(value.getType());
}

/// "[3, -1]", the spelling of a shape or dims attribute in messages.
std::string formatList(ArrayRef<int64_t> values) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleave(values, os, ", ");
  os << "]";
  return os.str();
}

int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

} // namespace

/// `dim` made non-negative, or an error when it is outside [-rank, rank-1]
/// (`what` names the attribute; `shape` is the input's, for the message).
static FailureOr<int64_t> normalizeDim(std::optional<Location> loc,
                                       StringRef opName, int64_t dim,
                                       int64_t rank, ArrayRef<int64_t> shape,
                                       StringRef what) {
  // PyTorch lets a scalar take dim 0 and -1 (as if it were 1-D).
  int64_t bound = std::max<int64_t>(rank, 1);
  if (dim < -bound || dim >= bound)
    return emitOptionalError(loc, opName, ": ", what, " ", dim,
                             " is out of range for input ", formatShape(shape),
                             " (expected ", -bound, " to ", bound - 1, ")");
  return dim < 0 ? dim + bound : dim;
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

/// `shape` with its -1 resolved so that it holds as many elements as `input`.
static FailureOr<SmallVector<int64_t>>
inferReshapeShape(std::optional<Location> loc, StringRef opName,
                  ArrayRef<int64_t> input, ArrayRef<int64_t> shape) {
  int64_t numel = product(input);
  int64_t inferred = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == -1) {
      if (inferred >= 0)
        return emitOptionalError(loc, opName,
                                 ": only one dimension can be -1, "
                                 "got ",
                                 formatList(shape), " (input ",
                                 formatShape(input), ")");
      inferred = i;
    } else if (d < 0) {
      return emitOptionalError(loc, opName, ": invalid size ", d, " in ",
                               formatList(shape), " (input ",
                               formatShape(input), ")");
    } else {
      known *= d;
    }
  }
  SmallVector<int64_t> result(shape);
  if (inferred >= 0) {
    if (known == 0 || numel % known != 0)
      return emitOptionalError(loc, opName, ": shape ", formatList(shape),
                               " is invalid for input ", formatShape(input),
                               " (", numel, " elements)");
    result[inferred] = numel / known;
  } else if (known != numel) {
    return emitOptionalError(loc, opName, ": shape ", formatList(shape),
                             " is invalid for input ", formatShape(input), " (",
                             numel, " elements)");
  }
  return result;
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto input = rankedType(adaptor.getInput());
  auto shape =
      inferReshapeShape(loc, "reshape", input.getShape(), adaptor.getShape());
  if (failed(shape))
    return failure();
  inferred.push_back(RankedTensorType::get(*shape, input.getElementType()));
  return success();
}

/// A reshape to the input's own shape is the input.
OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// FlattenOp
//===----------------------------------------------------------------------===//

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> shape = input.getShape();
  auto start = normalizeDim(loc, "flatten", adaptor.getStartDim(),
                            input.getRank(), shape, "start_dim");
  if (failed(start))
    return failure();
  auto end = normalizeDim(loc, "flatten", adaptor.getEndDim(), input.getRank(),
                          shape, "end_dim");
  if (failed(end))
    return failure();
  if (*start > *end)
    return emitOptionalError(
        loc, "flatten: start_dim ", static_cast<int64_t>(adaptor.getStartDim()),
        " comes after end_dim ", static_cast<int64_t>(adaptor.getEndDim()),
        " (input ", formatShape(shape), ")");
  SmallVector<int64_t> result;
  if (input.getRank() == 0) {
    result.push_back(1);
  } else {
    result.append(shape.begin(), shape.begin() + *start);
    result.push_back(product(shape.slice(*start, *end - *start + 1)));
    result.append(shape.begin() + *end + 1, shape.end());
  }
  inferred.push_back(RankedTensorType::get(result, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// SqueezeOp / UnsqueezeOp
//===----------------------------------------------------------------------===//

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> shape = input.getShape();
  SmallVector<int64_t> result;
  if (std::optional<int64_t> dim = adaptor.getDim()) {
    auto d = normalizeDim(loc, "squeeze", *dim, input.getRank(), shape, "dim");
    if (failed(d))
      return failure();
    for (auto [i, size] : llvm::enumerate(shape))
      if (static_cast<int64_t>(i) != *d || size != 1)
        result.push_back(size);
  } else {
    for (int64_t size : shape)
      if (size != 1)
        result.push_back(size);
  }
  inferred.push_back(RankedTensorType::get(result, input.getElementType()));
  return success();
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto input = rankedType(adaptor.getInput());
  auto d = normalizeDim(loc, "unsqueeze", adaptor.getDim(), input.getRank() + 1,
                        input.getShape(), "dim");
  if (failed(d))
    return failure();
  SmallVector<int64_t> result(input.getShape());
  result.insert(result.begin() + *d, 1);
  inferred.push_back(RankedTensorType::get(result, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// ExpandOp
//===----------------------------------------------------------------------===//

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> shape = input.getShape();
  ArrayRef<int64_t> target = adaptor.getShape();
  int64_t rank = target.size(), offset = rank - input.getRank();
  if (offset < 0)
    return emitOptionalError(
        loc, "expand: the target shape ", formatList(target),
        " has fewer dimensions than input ", formatShape(shape));
  SmallVector<int64_t> result(target);
  for (int64_t i = 0; i < rank; ++i) {
    if (i < offset) {
      if (target[i] < 0)
        return emitOptionalError(loc, "expand: new leading dimension ", i,
                                 " needs a size, got ", target[i], " (input ",
                                 formatShape(shape), ", target ",
                                 formatList(target), ")");
      continue;
    }
    int64_t from = shape[i - offset];
    if (target[i] == -1) {
      result[i] = from;
    } else if (target[i] < 0 || (from != 1 && from != target[i])) {
      return emitOptionalError(loc, "expand: dimension ", i, " of size ", from,
                               " cannot expand to ", target[i], " (input ",
                               formatShape(shape), ", target ",
                               formatList(target), ")");
    }
  }
  inferred.push_back(RankedTensorType::get(result, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// PermuteOp / TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult PermuteOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> shape = input.getShape();
  ArrayRef<int64_t> dims = adaptor.getDims();
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(dims.size()) != rank)
    return emitOptionalError(loc, "permute: dims ", formatList(dims), " has ",
                             dims.size(), " entries but input ",
                             formatShape(shape), " has ", rank, " dimensions");
  SmallVector<int64_t> result;
  SmallVector<bool> seen(rank, false);
  for (int64_t dim : dims) {
    auto d = normalizeDim(loc, "permute", dim, rank, shape, "dim");
    if (failed(d))
      return failure();
    if (seen[*d])
      return emitOptionalError(loc, "permute: dims ", formatList(dims),
                               " repeat dimension ", *d, " (input ",
                               formatShape(shape), ")");
    seen[*d] = true;
    result.push_back(shape[*d]);
  }
  inferred.push_back(RankedTensorType::get(result, input.getElementType()));
  return success();
}

SmallVector<int64_t> PermuteOp::getPermutation() {
  int64_t rank = getInput().getType().getRank();
  SmallVector<int64_t> perm;
  for (int64_t d : getDims())
    perm.push_back(d < 0 ? d + rank : d);
  return perm;
}

OpFoldResult PermuteOp::fold(FoldAdaptor) {
  auto perm = getPermutation();
  for (auto [i, d] : llvm::enumerate(perm))
    if (static_cast<int64_t>(i) != d)
      return {};
  return getInput();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> shape = input.getShape();
  auto d0 = normalizeDim(loc, "transpose", adaptor.getDim0(), input.getRank(),
                         shape, "dim0");
  if (failed(d0))
    return failure();
  auto d1 = normalizeDim(loc, "transpose", adaptor.getDim1(), input.getRank(),
                         shape, "dim1");
  if (failed(d1))
    return failure();
  SmallVector<int64_t> result(shape);
  if (input.getRank() > 0)
    std::swap(result[*d0], result[*d1]);
  inferred.push_back(RankedTensorType::get(result, input.getElementType()));
  return success();
}

SmallVector<int64_t> TransposeOp::getPermutation() {
  int64_t rank = getInput().getType().getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (rank == 0)
    return perm;
  // I64Attr getters are unsigned: read them as the signed dims they hold.
  int64_t d0 = static_cast<int64_t>(getDim0()),
          d1 = static_cast<int64_t>(getDim1());
  d0 = d0 < 0 ? d0 + rank : d0;
  d1 = d1 < 0 ? d1 + rank : d1;
  std::swap(perm[d0], perm[d1]);
  return perm;
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  auto perm = getPermutation();
  for (auto [i, d] : llvm::enumerate(perm))
    if (static_cast<int64_t>(i) != d)
      return {};
  return getInput();
}

namespace {

/// The permutation a transpose or permute applies, or none for other ops.
std::optional<SmallVector<int64_t>> permutationOf(Operation *op) {
  if (auto permute = llvm::dyn_cast_or_null<PermuteOp>(op))
    return permute.getPermutation();
  if (auto transpose = llvm::dyn_cast_or_null<TransposeOp>(op))
    return transpose.getPermutation();
  return std::nullopt;
}

/// transpose/permute of transpose/permute → one permute (which folds away
/// when the composition is the identity).
template <typename OpTy>
struct ComposePermutations : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Operation *producer = op.getInput().getDefiningOp();
    auto inner = permutationOf(producer);
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a permutation");
    SmallVector<int64_t> outer = op.getPermutation();
    // result[i] = mid[outer[i]] = input[inner[outer[i]]].
    SmallVector<int64_t> composed;
    for (int64_t d : outer)
      composed.push_back((*inner)[d]);
    Value source = producer->getOperand(0);
    bool identity = llvm::all_of(llvm::enumerate(composed), [](auto e) {
      return static_cast<int64_t>(e.index()) == e.value();
    });
    if (identity && source.getType() == op.getType()) {
      rewriter.replaceOp(op, source);
      return success();
    }
    rewriter.replaceOpWithNewOp<PermuteOp>(
        op, op.getType(), source, rewriter.getDenseI64ArrayAttr(composed));
    return success();
  }
};

/// A shape op of an `arith.constant` → the constant in the result's shape:
/// a reshape keeps the elements in row-major order, a permutation of a
/// splat is the same splat. (A folder cannot do it: the dialect has no
/// constant materializer, its constants are arith's.) Other permuted
/// constants keep the op: folding them copies the attribute element by
/// element, and traced graphs hold none worth it (weights are parameters,
/// not constants).
template <typename OpTy>
struct FoldShapeOfConstant : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr input;
    if (!matchPattern(op.getInput(), m_Constant(&input)))
      return rewriter.notifyMatchFailure(op, "input is not a constant");
    auto type = llvm::cast<ShapedType>(op.getType());
    DenseElementsAttr folded;
    if (input.isSplat())
      folded = DenseElementsAttr::get(type, input.getSplatValue<Attribute>());
    else if (std::is_same_v<OpTy, ReshapeOp>)
      folded = input.reshape(type);
    else
      return rewriter.notifyMatchFailure(op, "permuting a non-splat constant "
                                             "is left to the op");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, llvm::cast<TypedAttr>(folded));
    return success();
  }
};

#include "nn/IR/NNShapeCanonicalize.inc"

} // namespace

void PermuteOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ComposePermutations<PermuteOp>, FoldShapeOfConstant<PermuteOp>>(
      context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results
      .add<ComposePermutations<TransposeOp>, FoldShapeOfConstant<TransposeOp>>(
          context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ReshapeOfReshape, FoldShapeOfConstant<ReshapeOp>>(context);
}

//===----------------------------------------------------------------------===//
// CatOp / StackOp / SplitOp
//===----------------------------------------------------------------------===//

LogicalResult CatOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "cat: expected a non-empty list of tensors");
  auto first = rankedType(inputs[0]);
  if (first.getRank() == 0)
    return emitOptionalError(loc, "cat: zero-dimensional tensor 0 cannot be "
                                  "concatenated");
  auto dim = normalizeDim(loc, "cat", adaptor.getDim(), first.getRank(),
                          first.getShape(), "dim");
  if (failed(dim))
    return failure();
  SmallVector<int64_t> result(first.getShape());
  result[*dim] = 0;
  for (auto [i, value] : llvm::enumerate(inputs)) {
    auto type = rankedType(value);
    if (failed(sameElementType(loc, "cat", "tensor 0", first,
                               "tensor " + std::to_string(i), type)))
      return failure();
    bool compatible = type.getRank() == first.getRank();
    for (int64_t d = 0; compatible && d < first.getRank(); ++d)
      compatible = d == *dim || type.getDimSize(d) == first.getDimSize(d);
    if (!compatible)
      return emitOptionalError(loc, "cat: tensor ", i, " (", shapeOf(type),
                               ") does not match tensor 0 (", shapeOf(first),
                               ") outside dimension ", *dim);
    result[*dim] += type.getDimSize(*dim);
  }
  inferred.push_back(RankedTensorType::get(result, first.getElementType()));
  return success();
}

/// cat of one tensor is the tensor.
OpFoldResult CatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  return {};
}

LogicalResult StackOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "stack: expected a non-empty list of "
                                  "tensors");
  auto first = rankedType(inputs[0]);
  auto dim = normalizeDim(loc, "stack", adaptor.getDim(), first.getRank() + 1,
                          first.getShape(), "dim");
  if (failed(dim))
    return failure();
  for (auto [i, value] : llvm::enumerate(inputs)) {
    auto type = rankedType(value);
    if (failed(sameElementType(loc, "stack", "tensor 0", first,
                               "tensor " + std::to_string(i), type)))
      return failure();
    if (type.getShape() != first.getShape())
      return emitOptionalError(loc, "stack: tensor ", i, " (", shapeOf(type),
                               ") has a different shape than tensor 0 (",
                               shapeOf(first), ")");
  }
  SmallVector<int64_t> result(first.getShape());
  result.insert(result.begin() + *dim, inputs.size());
  inferred.push_back(RankedTensorType::get(result, first.getElementType()));
  return success();
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> shape = input.getShape();
  ArrayRef<int64_t> sizes = adaptor.getSplitSizes();
  if (input.getRank() == 0)
    return emitOptionalError(loc, "split: input must have at least one "
                                  "dimension, got a scalar");
  auto dim = normalizeDim(loc, "split", adaptor.getDim(), input.getRank(),
                          shape, "dim");
  if (failed(dim))
    return failure();
  if (sizes.empty())
    return emitOptionalError(loc, "split: split_sizes is empty (input ",
                             formatShape(shape), ")");
  int64_t total = 0;
  for (int64_t size : sizes) {
    if (size < 0)
      return emitOptionalError(loc, "split: split_sizes ", formatList(sizes),
                               " has a negative size (input ",
                               formatShape(shape), ")");
    if (__builtin_add_overflow(total, size, &total))
      return emitOptionalError(loc, "split: split_sizes ", formatList(sizes),
                               " sum past int64 (input ", formatShape(shape),
                               ")");
  }
  if (total != shape[*dim])
    return emitOptionalError(loc, "split: split_sizes ", formatList(sizes),
                             " sum to ", total, " but dimension ", *dim,
                             " of input ", formatShape(shape), " has size ",
                             shape[*dim]);
  for (int64_t size : sizes) {
    SmallVector<int64_t> result(shape);
    result[*dim] = size;
    inferred.push_back(RankedTensorType::get(result, input.getElementType()));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> shape = input.getShape();
  if (input.getRank() == 0)
    return emitOptionalError(loc, "slice: input must have at least one "
                                  "dimension, got a scalar");
  auto dim = normalizeDim(loc, "slice", adaptor.getDim(), input.getRank(),
                          shape, "dim");
  if (failed(dim))
    return failure();
  int64_t start = adaptor.getStart(), end = adaptor.getEnd(),
          step = adaptor.getStep();
  if (step < 1)
    return emitOptionalError(loc, "slice: step must be positive, got ", step,
                             " (input ", formatShape(shape), ")");
  if (start < 0 || start > end || end > shape[*dim])
    return emitOptionalError(
        loc, "slice: [", start, ":", end, "] is not a range within dimension ",
        *dim, " of input ", formatShape(shape),
        " (expected 0 <= start <= end <= ", shape[*dim], ")");
  SmallVector<int64_t> result(shape);
  result[*dim] = (end - start + step - 1) / step;
  inferred.push_back(RankedTensorType::get(result, input.getElementType()));
  return success();
}

/// The whole dimension with step 1 is the input.
OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType() && getStep() == 1)
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  auto input = rankedType(adaptor.getInput());
  ArrayRef<int64_t> shape = input.getShape(), low = adaptor.getLow(),
                    high = adaptor.getHigh();
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(low.size()) != rank ||
      static_cast<int64_t>(high.size()) != rank)
    return emitOptionalError(loc, "pad: ", low.size(), " low and ", high.size(),
                             " high pads for an input of rank ", rank, " (",
                             formatShape(shape),
                             "); one of each per dimension");
  SmallVector<int64_t> result(shape);
  for (int64_t d = 0; d < rank; ++d) {
    if (low[d] < 0 || high[d] < 0)
      return emitOptionalError(loc, "pad: dimension ", d, " padded by (",
                               low[d], ", ", high[d],
                               "); pads are non-negative (crop with nn.slice)");
    result[d] += low[d] + high[d];
  }
  double value = adaptor.getValue().convertToDouble();
  if (llvm::isa<IntegerType>(input.getElementType()) &&
      value != std::trunc(value))
    return emitOptionalError(loc, "pad: value ", value,
                             " is not an integer, as the ",
                             input.getElementType(), " input needs");
  inferred.push_back(RankedTensorType::get(result, input.getElementType()));
  return success();
}

/// No padding is the input.
OpFoldResult PadOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// IndexSelectOp / GatherOp / EmbeddingOp
//===----------------------------------------------------------------------===//

LogicalResult IndexSelectOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  auto input = rankedType(adaptor.getInput());
  auto index = rankedType(adaptor.getIndex());
  ArrayRef<int64_t> shape = input.getShape();
  if (index.getRank() > 1)
    return emitOptionalError(loc,
                             "index_select: index must be 1-D or a "
                             "scalar, got ",
                             shapeOf(index), " (input ", formatShape(shape),
                             ")");
  auto dim = normalizeDim(loc, "index_select", adaptor.getDim(),
                          input.getRank(), shape, "dim");
  if (failed(dim))
    return failure();
  SmallVector<int64_t> result(shape);
  int64_t count = index.getRank() == 0 ? 1 : index.getDimSize(0);
  if (input.getRank() == 0) {
    if (count != 1)
      return emitOptionalError(loc,
                               "index_select: a scalar input takes one "
                               "index, got ",
                               shapeOf(index));
  } else {
    result[*dim] = count;
  }
  inferred.push_back(RankedTensorType::get(result, input.getElementType()));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto input = rankedType(adaptor.getInput());
  auto index = rankedType(adaptor.getIndex());
  ArrayRef<int64_t> shape = input.getShape();
  auto dim = normalizeDim(loc, "gather", adaptor.getDim(), input.getRank(),
                          shape, "dim");
  if (failed(dim))
    return failure();
  if (index.getRank() != input.getRank())
    return emitOptionalError(loc, "gather: index ", shapeOf(index),
                             " and input ", formatShape(shape),
                             " must have the same number of dimensions");
  for (int64_t d = 0; d < input.getRank(); ++d)
    if (d != *dim && index.getDimSize(d) > input.getDimSize(d))
      return emitOptionalError(loc, "gather: index ", shapeOf(index),
                               " is larger than input ", formatShape(shape),
                               " in dimension ", d);
  inferred.push_back(
      RankedTensorType::get(index.getShape(), input.getElementType()));
  return success();
}

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto indices = rankedType(adaptor.getIndices());
  auto weight = rankedType(adaptor.getWeight());
  if (weight.getRank() != 2)
    return emitOptionalError(loc,
                             "embedding: weight must be 2-D "
                             "[num_embeddings, embedding_dim], got ",
                             shapeOf(weight), " (indices ", shapeOf(indices),
                             ")");
  if (auto padding = adaptor.getPaddingIdxAttr();
      padding &&
      (padding.getInt() < 0 || padding.getInt() >= weight.getDimSize(0)))
    return emitOptionalError(loc, "embedding: padding_idx ", padding.getInt(),
                             " is outside [0, ", weight.getDimSize(0),
                             ") (weight ", shapeOf(weight), ")");
  SmallVector<int64_t> result(indices.getShape());
  result.push_back(weight.getDimSize(1));
  inferred.push_back(RankedTensorType::get(result, weight.getElementType()));
  return success();
}
