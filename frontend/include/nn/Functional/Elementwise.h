//===- Elementwise.h - Arithmetic, math, comparisons ------------*- C++ -*-===//
//
// Part of nn/Functional.h; see there for the rules every functional op
// follows.
//
//===----------------------------------------------------------------------===//
#ifndef NN_FUNCTIONAL_ELEMENTWISE_H
#define NN_FUNCTIONAL_ELEMENTWISE_H

#include "nn/Runtime/Tensor.h"

namespace nn {
namespace functional {

// Binary ops broadcast as NumPy does; both operands have one dtype. A double
// operand is a scalar of the tensor operand's dtype.
Tensor sub(const Tensor &lhs, const Tensor &rhs);
Tensor mul(const Tensor &lhs, const Tensor &rhs);
/// True division (floating-point tensors).
Tensor div(const Tensor &lhs, const Tensor &rhs);
Tensor pow(const Tensor &base, const Tensor &exponent);
/// NaN if either is NaN, as torch.maximum / torch.minimum.
Tensor maximum(const Tensor &lhs, const Tensor &rhs);
Tensor minimum(const Tensor &lhs, const Tensor &rhs);

Tensor add(const Tensor &lhs, double rhs);
Tensor sub(const Tensor &lhs, double rhs);
Tensor mul(const Tensor &lhs, double rhs);
Tensor div(const Tensor &lhs, double rhs);
Tensor pow(const Tensor &base, double exponent);

Tensor neg(const Tensor &input);
Tensor abs(const Tensor &input);
Tensor exp(const Tensor &input);
Tensor log(const Tensor &input);
Tensor sqrt(const Tensor &input);
Tensor rsqrt(const Tensor &input);

/// Boolean tensors; comparisons with NaN are false except ne.
Tensor eq(const Tensor &lhs, const Tensor &rhs);
Tensor ne(const Tensor &lhs, const Tensor &rhs);
Tensor lt(const Tensor &lhs, const Tensor &rhs);
Tensor le(const Tensor &lhs, const Tensor &rhs);
Tensor gt(const Tensor &lhs, const Tensor &rhs);
Tensor ge(const Tensor &lhs, const Tensor &rhs);
Tensor gt(const Tensor &lhs, double rhs);
Tensor lt(const Tensor &lhs, double rhs);

/// condition ? lhs : rhs, elementwise with broadcasting.
Tensor where(const Tensor &condition, const Tensor &lhs, const Tensor &rhs);

} // namespace functional

inline Tensor operator-(const Tensor &lhs, const Tensor &rhs) {
  return functional::sub(lhs, rhs);
}
inline Tensor operator*(const Tensor &lhs, const Tensor &rhs) {
  return functional::mul(lhs, rhs);
}
inline Tensor operator/(const Tensor &lhs, const Tensor &rhs) {
  return functional::div(lhs, rhs);
}
inline Tensor operator-(const Tensor &input) { return functional::neg(input); }
inline Tensor operator+(const Tensor &lhs, double rhs) {
  return functional::add(lhs, rhs);
}
inline Tensor operator+(double lhs, const Tensor &rhs) {
  return functional::add(rhs, lhs);
}
inline Tensor operator-(const Tensor &lhs, double rhs) {
  return functional::sub(lhs, rhs);
}
inline Tensor operator-(double lhs, const Tensor &rhs) {
  return functional::add(functional::neg(rhs), lhs);
}
inline Tensor operator*(const Tensor &lhs, double rhs) {
  return functional::mul(lhs, rhs);
}
inline Tensor operator*(double lhs, const Tensor &rhs) {
  return functional::mul(rhs, lhs);
}
inline Tensor operator/(const Tensor &lhs, double rhs) {
  return functional::div(lhs, rhs);
}

} // namespace nn

#endif // NN_FUNCTIONAL_ELEMENTWISE_H
