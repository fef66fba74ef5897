//===- Functional.cpp - Functional ops recorded into the trace ------------===//
//
// Each function turns its tensors into IR values and records one nn op;
// shape checking is the op's own type inference (see NNOps.cpp), reported
// with the module path by TraceContext::emit.
//
//===----------------------------------------------------------------------===//

#include "nn/Functional.h"

#include "TraceContext.h"

#include "nn/IR/NNOps.h"

namespace nn::functional {

using detail::TraceContext;

Tensor linear(const Tensor &input, const Tensor &weight, const Tensor &bias) {
  TraceContext &t = TraceContext::current("linear");
  mlir::Value x = t.valueOf(input, "linear", "input");
  mlir::Value w = t.valueOf(weight, "linear", "weight");
  mlir::Value b =
      bias.defined() ? t.valueOf(bias, "linear", "bias") : mlir::Value();
  return t.emit<mlir::nn::LinearOp>(x.getType(), x, w, b);
}

Tensor matmul(const Tensor &lhs, const Tensor &rhs) {
  TraceContext &t = TraceContext::current("matmul");
  mlir::Value a = t.valueOf(lhs, "matmul", "lhs");
  mlir::Value b = t.valueOf(rhs, "matmul", "rhs");
  return t.emit<mlir::nn::MatmulOp>(a.getType(), a, b);
}

Tensor addmm(const Tensor &input, const Tensor &mat1, const Tensor &mat2,
             double beta, double alpha) {
  TraceContext &t = TraceContext::current("addmm");
  if (mat1.dim() != 2 || mat2.dim() != 2)
    t.fail("addmm: mat1 and mat2 must be 2-D (mat1 " + shape_str(mat1.shape()) +
           ", mat2 " + shape_str(mat2.shape()) + ")");
  Tensor product = matmul(mat1, mat2);
  if (alpha != 1.0)
    product = mul(product, alpha);
  if (beta == 0.0)
    return product;
  return add(beta == 1.0 ? input : mul(input, beta), product);
}

Tensor add(const Tensor &lhs, const Tensor &rhs) {
  TraceContext &t = TraceContext::current("add");
  mlir::Value a = t.valueOf(lhs, "add", "lhs");
  mlir::Value b = t.valueOf(rhs, "add", "rhs");
  return t.emit<mlir::nn::AddOp>(a.getType(), a, b);
}

Tensor relu(const Tensor &input) {
  TraceContext &t = TraceContext::current("relu");
  mlir::Value x = t.valueOf(input, "relu", "input");
  return t.emit<mlir::nn::ReluOp>(x.getType(), x);
}

Tensor dropout(const Tensor &input, double p, bool training) {
  TraceContext &t = TraceContext::current("dropout");
  mlir::Value x = t.valueOf(input, "dropout", "input");
  // Each training dropout gets its own range of Philox counters; evaluation
  // (or p = 0) draws nothing and adds no generator state to the forward.
  auto [rng, offset] = training && p > 0.0 ? t.nextRandomStream(input.numel())
                                           : std::pair<mlir::Value, int64_t>{};
  return t.emit<mlir::nn::DropoutOp>(
      x.getType(), x, rng, t.builder.getF64FloatAttr(p),
      training ? t.builder.getUnitAttr() : mlir::UnitAttr(),
      t.builder.getI64IntegerAttr(offset));
}

} // namespace nn::functional
