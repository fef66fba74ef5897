//===- GradBuilder.cpp - The ops gradients are written in -----------------===//

#include "nn/Transforms/Autodiff.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::nn;

static RankedTensorType tensorType(Value v) {
  return llvm::cast<RankedTensorType>(v.getType());
}

template <typename Op, typename... Args>
Value GradBuilder::inferred(Args &&...args) {
  // What ODS's type-inferring builders do, with a failure that ends the
  // rule instead of report_fatal_error.
  OperationState state(loc, Op::getOperationName());
  Op::build(b, state, TypeRange(), std::forward<Args>(args)...);
  SmallVector<Type> types;
  if (failed(
          Op::inferReturnTypes(b.getContext(), loc, state.operands,
                               state.attributes.getDictionary(b.getContext()),
                               state.getRawProperties(), state.regions, types)))
    throw Failure();
  state.addTypes(types);
  return b.create(state)->getResult(0);
}

Value GradBuilder::add(Value lhs, Value rhs) {
  return inferred<AddOp>(lhs, rhs);
}
Value GradBuilder::sub(Value lhs, Value rhs) {
  return inferred<SubOp>(lhs, rhs);
}
Value GradBuilder::mul(Value lhs, Value rhs) {
  return inferred<MulOp>(lhs, rhs);
}
Value GradBuilder::div(Value lhs, Value rhs) {
  return inferred<DivOp>(lhs, rhs);
}
Value GradBuilder::neg(Value x) { return b.create<NegOp>(loc, x); }
Value GradBuilder::exp(Value x) { return b.create<ExpOp>(loc, x); }
Value GradBuilder::log(Value x) { return b.create<LogOp>(loc, x); }
Value GradBuilder::sqrt(Value x) { return b.create<SqrtOp>(loc, x); }
Value GradBuilder::rsqrt(Value x) { return b.create<RsqrtOp>(loc, x); }

Value GradBuilder::filled(Value like, ArrayRef<int64_t> shape, double value) {
  Type element = tensorType(like).getElementType();
  auto type = RankedTensorType::get(shape, element);
  Attribute attr = llvm::isa<FloatType>(element)
                       ? Attribute(b.getFloatAttr(element, value))
                       : Attribute(b.getIntegerAttr(element, int64_t(value)));
  return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(type, attr));
}

Value GradBuilder::slice(Value x, int64_t dim, int64_t start, int64_t end,
                         int64_t step) {
  if (start == 0 && step == 1 && end == tensorType(x).getDimSize(dim))
    return x;
  return inferred<SliceOp>(
      x, static_cast<uint64_t>(dim), static_cast<uint64_t>(start),
      static_cast<uint64_t>(end), static_cast<uint64_t>(step));
}

Value GradBuilder::cat(ValueRange parts, int64_t dim) {
  if (parts.size() == 1)
    return parts.front();
  return inferred<CatOp>(parts, static_cast<uint64_t>(dim));
}

Value GradBuilder::pad(Value x, int64_t dim, int64_t lo, int64_t hi,
                       double value) {
  SmallVector<int64_t> low(tensorType(x).getRank(), 0), high(low);
  low[dim] = lo, high[dim] = hi;
  return pad(x, low, high, value);
}

Value GradBuilder::pad(Value x, ArrayRef<int64_t> lo, ArrayRef<int64_t> hi,
                       double value) {
  if (llvm::all_of(lo, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(hi, [](int64_t v) { return v == 0; }))
    return x;
  return inferred<PadOp>(x, b.getDenseI64ArrayAttr(lo),
                         b.getDenseI64ArrayAttr(hi), b.getF64FloatAttr(value));
}

Value GradBuilder::unslice(Value x, int64_t dim, int64_t start, int64_t step,
                           int64_t size) {
  SmallVector<int64_t> shape(tensorType(x).getShape());
  int64_t count = shape[dim];
  Value spread = x;
  if (step > 1 && count > 0) {
    // Each element followed by step - 1 zeros, the trailing zeros dropped.
    SmallVector<int64_t> column(shape);
    column.insert(column.begin() + dim + 1, 1);
    SmallVector<int64_t> gap(column);
    gap[dim + 1] = step - 1;
    Value interleaved = cat({reshape(x, column), filled(x, gap, 0.0)}, dim + 1);
    SmallVector<int64_t> flat(shape);
    flat[dim] = count * step;
    spread = slice(reshape(interleaved, flat), dim, 0, (count - 1) * step + 1);
  }
  int64_t length = tensorType(spread).getDimSize(dim);
  return pad(spread, dim, start, size - start - length, 0.0);
}

Value GradBuilder::meanKeep(Value x, ArrayRef<int64_t> dims) {
  int64_t count = 1;
  for (int64_t d : dims)
    count *= tensorType(x).getDimSize(d);
  return scale(sum(x, dims, /*keepdim=*/true), 1.0 / double(count));
}

Value GradBuilder::pow(Value x, Value exponent) {
  return inferred<PowOp>(x, exponent);
}

Value GradBuilder::scalar(Value like, double value) {
  Type element = tensorType(like).getElementType();
  auto type = RankedTensorType::get({}, element);
  Attribute attr = llvm::isa<FloatType>(element)
                       ? Attribute(b.getFloatAttr(element, value))
                       : Attribute(b.getIntegerAttr(element, int64_t(value)));
  return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(type, attr));
}

Value GradBuilder::scale(Value x, double factor) {
  return mul(x, scalar(x, factor));
}

Value GradBuilder::compare(ComparisonPredicate predicate, Value lhs,
                           Value rhs) {
  return inferred<CompareOp>(predicate, lhs, rhs);
}

Value GradBuilder::where(Value condition, Value lhs, Value rhs) {
  return inferred<WhereOp>(condition, lhs, rhs);
}

Value GradBuilder::mask(Value condition, Value x) {
  return where(condition, x, scalar(x, 0.0));
}

Value GradBuilder::sum(Value x, ArrayRef<int64_t> dims, bool keepdim) {
  return inferred<SumOp>(x, dims, keepdim);
}

Value GradBuilder::reshape(Value x, ArrayRef<int64_t> shape) {
  if (tensorType(x).getShape() == shape)
    return x;
  return inferred<ReshapeOp>(x, shape);
}

Value GradBuilder::transpose(Value x, int64_t dim0, int64_t dim1) {
  return inferred<TransposeOp>(x, static_cast<uint64_t>(dim0),
                               static_cast<uint64_t>(dim1));
}

Value GradBuilder::permute(Value x, ArrayRef<int64_t> dims) {
  return inferred<PermuteOp>(x, dims);
}

Value GradBuilder::expand(Value x, ArrayRef<int64_t> shape) {
  if (tensorType(x).getShape() == shape)
    return x;
  return inferred<ExpandOp>(x, shape);
}

Value GradBuilder::matmul(Value lhs, Value rhs) {
  ArrayRef<int64_t> a = tensorType(lhs).getShape(),
                    c = tensorType(rhs).getShape();
  if (a.size() >= 2 && c.size() >= 2)
    return inferred<MatmulOp>(lhs, rhs);
  // nn.matmul takes matrices: a vector becomes one, and the product loses
  // that dim again.
  Value l = a.size() == 1 ? reshape(lhs, {1, a[0]}) : lhs;
  Value r = c.size() == 1 ? reshape(rhs, {c[0], 1}) : rhs;
  Value product = inferred<MatmulOp>(l, r);
  SmallVector<int64_t> shape(tensorType(product).getShape());
  if (c.size() == 1)
    shape.pop_back();
  if (a.size() == 1)
    shape.erase(shape.end() - (c.size() == 1 ? 1 : 2));
  return reshape(product, shape);
}

Value GradBuilder::unbroadcast(Value grad, Type type) {
  ArrayRef<int64_t> from = tensorType(grad).getShape();
  ArrayRef<int64_t> to = llvm::cast<RankedTensorType>(type).getShape();
  if (from == to)
    return grad;
  // Leading dims the target lacks, and dims it has as 1 where the gradient
  // does not, are summed (keepdim), then the result takes the target's
  // shape.
  SmallVector<int64_t> dims;
  size_t lead = from.size() - to.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (i < lead || (to[i - lead] == 1 && from[i] != 1))
      dims.push_back(static_cast<int64_t>(i));
  Value summed = dims.empty() ? grad : sum(grad, dims, /*keepdim=*/true);
  return reshape(summed, to);
}

const VJPRule *VJPRules::lookup(Operation *op) const {
  auto it = rules.find(op->getName().getStringRef());
  return it == rules.end() ? nullptr : &it->second;
}
