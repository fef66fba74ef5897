//===- Elementwise.cpp - Arithmetic, math, comparisons --------------------===//
//
// Records the ops of nn/Functional/Elementwise.h into the current trace.
//
//===----------------------------------------------------------------------===//

#include "nn/Functional/Elementwise.h"

#include "../TraceContext.h"

#include "nn/IR/NNOps.h"

namespace nn::functional {

using detail::TraceContext;

namespace {

/// Records a two-operand op; `Extra` leads the operands (compare's
/// predicate).
template <typename OpTy, typename... Extra>
Tensor binary(const char *name, const Tensor &lhs, const Tensor &rhs,
              Extra &&...extra) {
  TraceContext &t = TraceContext::current(name);
  mlir::Value a = t.valueOf(lhs, name, "lhs");
  mlir::Value b = t.valueOf(rhs, name, "rhs");
  return t.emit<OpTy>(a.getType(), std::forward<Extra>(extra)..., a, b);
}

/// Records `op(lhs, scalar)` with the scalar as a rank-0 constant of lhs's
/// dtype.
template <typename OpTy>
Tensor withScalar(const char *name, const Tensor &lhs, double rhs) {
  TraceContext &t = TraceContext::current(name);
  mlir::Value a = t.valueOf(lhs, name, "lhs");
  mlir::Value b = t.scalar(rhs, a.getType());
  return t.emit<OpTy>(a.getType(), a, b);
}

template <typename OpTy> Tensor unary(const char *name, const Tensor &input) {
  TraceContext &t = TraceContext::current(name);
  mlir::Value x = t.valueOf(input, name, "input");
  return t.emit<OpTy>(x.getType(), x);
}

Tensor compare(const char *name, mlir::nn::ComparisonPredicate predicate,
               const Tensor &lhs, const Tensor &rhs) {
  return binary<mlir::nn::CompareOp>(name, lhs, rhs, predicate);
}

} // namespace

using namespace mlir::nn;

Tensor sub(const Tensor &l, const Tensor &r) {
  return binary<SubOp>("sub", l, r);
}
Tensor mul(const Tensor &l, const Tensor &r) {
  return binary<MulOp>("mul", l, r);
}
Tensor div(const Tensor &l, const Tensor &r) {
  return binary<DivOp>("div", l, r);
}
Tensor pow(const Tensor &l, const Tensor &r) {
  return binary<PowOp>("pow", l, r);
}
Tensor maximum(const Tensor &l, const Tensor &r) {
  return binary<MaximumOp>("maximum", l, r);
}
Tensor minimum(const Tensor &l, const Tensor &r) {
  return binary<MinimumOp>("minimum", l, r);
}

Tensor add(const Tensor &l, double r) { return withScalar<AddOp>("add", l, r); }
Tensor sub(const Tensor &l, double r) { return withScalar<SubOp>("sub", l, r); }
Tensor mul(const Tensor &l, double r) { return withScalar<MulOp>("mul", l, r); }
Tensor div(const Tensor &l, double r) { return withScalar<DivOp>("div", l, r); }
Tensor pow(const Tensor &l, double r) { return withScalar<PowOp>("pow", l, r); }

Tensor neg(const Tensor &x) { return unary<NegOp>("neg", x); }
Tensor abs(const Tensor &x) { return unary<AbsOp>("abs", x); }
Tensor exp(const Tensor &x) { return unary<ExpOp>("exp", x); }
Tensor log(const Tensor &x) { return unary<LogOp>("log", x); }
Tensor sqrt(const Tensor &x) { return unary<SqrtOp>("sqrt", x); }
Tensor rsqrt(const Tensor &x) { return unary<RsqrtOp>("rsqrt", x); }

Tensor eq(const Tensor &l, const Tensor &r) {
  return compare("eq", ComparisonPredicate::eq, l, r);
}
Tensor ne(const Tensor &l, const Tensor &r) {
  return compare("ne", ComparisonPredicate::ne, l, r);
}
Tensor lt(const Tensor &l, const Tensor &r) {
  return compare("lt", ComparisonPredicate::lt, l, r);
}
Tensor le(const Tensor &l, const Tensor &r) {
  return compare("le", ComparisonPredicate::le, l, r);
}
Tensor gt(const Tensor &l, const Tensor &r) {
  return compare("gt", ComparisonPredicate::gt, l, r);
}
Tensor ge(const Tensor &l, const Tensor &r) {
  return compare("ge", ComparisonPredicate::ge, l, r);
}
Tensor gt(const Tensor &l, double r) {
  TraceContext &t = TraceContext::current("gt");
  mlir::Value a = t.valueOf(l, "gt", "lhs");
  return t.emit<CompareOp>(a.getType(), ComparisonPredicate::gt, a,
                           t.scalar(r, a.getType()));
}
Tensor lt(const Tensor &l, double r) {
  TraceContext &t = TraceContext::current("lt");
  mlir::Value a = t.valueOf(l, "lt", "lhs");
  return t.emit<CompareOp>(a.getType(), ComparisonPredicate::lt, a,
                           t.scalar(r, a.getType()));
}

Tensor where(const Tensor &condition, const Tensor &lhs, const Tensor &rhs) {
  TraceContext &t = TraceContext::current("where");
  mlir::Value c = t.valueOf(condition, "where", "condition");
  mlir::Value a = t.valueOf(lhs, "where", "lhs");
  mlir::Value b = t.valueOf(rhs, "where", "rhs");
  return t.emit<WhereOp>(a.getType(), c, a, b);
}

} // namespace nn::functional
