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

/// A traced rank-0 constant of `like`'s element type, a `where` operand.
Tensor scalarLike(const char *name, const Tensor &like, double value) {
  TraceContext &t = TraceContext::current(name);
  mlir::Value x = t.valueOf(like, name, "input");
  return t.wrap(t.scalar(value, x.getType()));
}

/// x for x > 0, (exp(x · inputScale) − 1) · negative otherwise: PyTorch's
/// elu kernel, of which elu, selu and celu are instances. exp reads
/// min(x, 0), so that the branch not taken cannot overflow to inf, whose
/// product with a zero gradient would be NaN.
Tensor eluLike(const Tensor &input, double positive, double negative,
               double inputScale) {
  Tensor scaled = clamp(input, std::nullopt, 0.0);
  if (inputScale != 1.0)
    scaled = mul(scaled, inputScale);
  Tensor below = mul(sub(exp(scaled), 1.0), negative);
  return where(gt(input, 0.0), positive == 1.0 ? input : mul(input, positive),
               below);
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
  return eluLike(input, 1.0, alpha, 1.0);
}

Tensor selu(const Tensor &input) {
  // torch.nn.functional.selu's constants; PyTorch multiplies them in
  // float for a float input, so does this.
  constexpr double kAlpha = 1.6732632423543772848170429916717;
  constexpr double kScale = 1.0507009873554804934193349852946;
  return eluLike(input, static_cast<float>(kScale),
                 static_cast<float>(kAlpha) * static_cast<float>(kScale), 1.0);
}

Tensor celu(const Tensor &input, double alpha) {
  if (alpha == 0.0)
    TraceContext::current("celu").fail("celu: alpha must not be 0");
  return eluLike(input, 1.0, alpha, 1.0 / alpha);
}

Tensor softplus(const Tensor &input, double beta, double threshold) {
  Tensor scaled = mul(input, beta);
  // log(1 + exp(z)) / beta reads min(z, threshold), so that exp cannot
  // overflow in the branch not taken.
  Tensor soft =
      div(log(add(exp(clamp(scaled, std::nullopt, threshold)), 1.0)), beta);
  return where(gt(scaled, threshold), input, soft);
}

Tensor mish(const Tensor &input) {
  // PyTorch: x · tanh(log1p(exp(x))); above 20 the tanh is 1 in float
  // either way, and the threshold keeps exp finite.
  return mul(input, tanh(softplus(input)));
}

Tensor logsigmoid(const Tensor &input) {
  return sub(clamp(input, std::nullopt, 0.0),
             log(add(exp(neg(abs(input))), 1.0)));
}

Tensor softsign(const Tensor &input) {
  return div(input, add(abs(input), 1.0));
}

Tensor tanhshrink(const Tensor &input) { return sub(input, tanh(input)); }

Tensor hardshrink(const Tensor &input, double lambd) {
  // le, not gt: NaN compares false and stays x, as in PyTorch.
  Tensor inside = le(abs(input), scalarLike("hardshrink", input, lambd));
  return where(inside, scalarLike("hardshrink", input, 0.0), input);
}

Tensor softshrink(const Tensor &input, double lambd) {
  if (lambd < 0.0)
    TraceContext::current("softshrink")
        .fail("softshrink: lambd must be >= 0, got " + std::to_string(lambd));
  Tensor zero = scalarLike("softshrink", input, 0.0);
  return where(gt(input, lambd), sub(input, lambd),
               where(lt(input, -lambd), add(input, lambd), zero));
}

Tensor threshold(const Tensor &input, double threshold, double value) {
  Tensor below = le(input, scalarLike("threshold", input, threshold));
  return where(below, scalarLike("threshold", input, value), input);
}

Tensor glu(const Tensor &input, int64_t dim) {
  TraceContext &t = TraceContext::current("glu");
  int64_t rank = input.dim();
  int64_t d = dim < 0 ? dim + rank : dim;
  if (rank == 0 || d < 0 || d >= rank)
    t.fail("glu: dim " + std::to_string(dim) + " is out of range for input " +
           mlir::nn::formatShape(input.shape()));
  if (input.size(d) % 2 != 0)
    t.fail("glu: halving dimension must be even, but dimension " +
           std::to_string(d) + " is size " + std::to_string(input.size(d)) +
           " (input " + mlir::nn::formatShape(input.shape()) + ")");
  std::vector<Tensor> halves = chunk(input, 2, d);
  return mul(halves[0], sigmoid(halves[1]));
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

Tensor softmin(const Tensor &input, int64_t dim) {
  return softmax(neg(input), dim);
}

Tensor log_softmax(const Tensor &input, int64_t dim) {
  return unary<mlir::nn::LogSoftmaxOp>("log_softmax", input, dim);
}

} // namespace nn::functional
