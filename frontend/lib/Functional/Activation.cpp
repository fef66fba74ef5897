//===- Activation.cpp - nn::functional: activation functions ---===//
//
// Records the ops of nn/Functional/Activation.h into the current trace.
//
//===----------------------------------------------------------------------===//

#include "nn/Functional/Activation.h"
#include "nn/Functional/Elementwise.h"
#include "nn/Functional/Shape.h"

#include "../TraceContext.h"

#include "nn/IR/NNOps.h"

namespace nn::functional {

using detail::TraceContext;

namespace {

/// Records a one-operand op whose result has the operand's type.
template <typename OpTy, typename... Attrs>
Tensor unary(const char *name, const Tensor &input, Attrs &&...attrs) {
  TraceContext &t = TraceContext::current(name);
  mlir::Value x = t.valueOf(input, name, "input");
  return t.emit<OpTy>(x.getType(), x, std::forward<Attrs>(attrs)...);
}

} // namespace

Tensor sigmoid(const Tensor &input) {
  return unary<mlir::nn::SigmoidOp>("sigmoid", input);
}

Tensor tanh(const Tensor &input) {
  return unary<mlir::nn::TanhOp>("tanh", input);
}

Tensor silu(const Tensor &input) {
  return unary<mlir::nn::SiluOp>("silu", input);
}

Tensor gelu(const Tensor &input, const GELUFuncOptions &options) {
  mlir::nn::GeluApproximation mode;
  if (options.approximate() == "none")
    mode = mlir::nn::GeluApproximation::none;
  else if (options.approximate() == "tanh")
    mode = mlir::nn::GeluApproximation::tanh;
  else
    TraceContext::current("gelu").fail(
        "gelu: approximate must be \"none\" or \"tanh\", got \"" +
        options.approximate() + "\"");
  return unary<mlir::nn::GeluOp>("gelu", input, mode);
}

Tensor leaky_relu(const Tensor &input, double negative_slope) {
  TraceContext &t = TraceContext::current("leaky_relu");
  return unary<mlir::nn::LeakyReluOp>(
      "leaky_relu", input, t.builder.getF64FloatAttr(negative_slope));
}

Tensor clamp(const Tensor &input, std::optional<double> min,
             std::optional<double> max) {
  TraceContext &t = TraceContext::current("clamp");
  auto bound = [&](std::optional<double> v) {
    return v ? t.builder.getF64FloatAttr(*v) : mlir::FloatAttr();
  };
  return unary<mlir::nn::ClampOp>("clamp", input, bound(min), bound(max));
}

Tensor hardtanh(const Tensor &input, double min_val, double max_val) {
  return clamp(input, min_val, max_val);
}

Tensor relu6(const Tensor &input) { return clamp(input, 0.0, 6.0); }

// The three below are compositions of pointwise ops, which nn-fuse makes one
// loop; the order of operations is PyTorch's CPU kernels'.
Tensor hardsigmoid(const Tensor &input) {
  return div(clamp(add(input, 3.0), 0.0, 6.0), 6.0);
}

Tensor hardswish(const Tensor &input) {
  return div(mul(input, clamp(add(input, 3.0), 0.0, 6.0)), 6.0);
}

Tensor elu(const Tensor &input, double alpha) {
  return where(gt(input, 0.0), input, mul(sub(exp(input), 1.0), alpha));
}

Tensor prelu(const Tensor &input, const Tensor &weight) {
  TraceContext &t = TraceContext::current("prelu");
  // PyTorch's channel size: dim 1's, or 1 for inputs of rank < 2.
  int64_t channels = input.dim() >= 2 ? input.size(1) : 1;
  if (weight.dim() != 1 || (weight.size(0) != 1 && weight.size(0) != channels))
    t.fail("prelu: weight holds " + std::to_string(weight.numel()) +
           " slopes, but the input has " + std::to_string(channels) +
           " channels (weight " + mlir::nn::formatShape(weight.shape()) +
           ", input " + mlir::nn::formatShape(input.shape()) +
           "); it needs 1 or one per channel, in a 1-D weight");
  // The weight along dim 1, broadcast over the others.
  Shape shape(input.dim(), 1);
  if (input.dim() >= 2)
    shape[1] = weight.size(0);
  Tensor slope = reshape(weight, shape);
  return where(gt(input, 0.0), input, mul(slope, input));
}

Tensor softmax(const Tensor &input, int64_t dim) {
  return unary<mlir::nn::SoftmaxOp>("softmax", input, dim);
}

Tensor log_softmax(const Tensor &input, int64_t dim) {
  return unary<mlir::nn::LogSoftmaxOp>("log_softmax", input, dim);
}

} // namespace nn::functional
