//===- Activation.cpp - Activation layers ---------------------------------===//

#include "nn/Modules/Activation.h"

#include "nn/Frontend/Repr.h"
#include "nn/Functional.h"

#include <cmath>

namespace nn {

namespace {
/// PyTorch's inplace_str.
std::string inplaceRepr(bool inplace, const char *separator) {
  return inplace ? std::string(separator) + "inplace=True" : "";
}

/// A number as Python prints it when given as an int if it is integral
/// ("20"), else as a float ("10.5").
std::string pyNumber(double value) {
  if (value == std::trunc(value) && std::fabs(value) < 1e15)
    return std::to_string(static_cast<long long>(value));
  return py_repr(value);
}
} // namespace

Tensor ReLUImpl::forward(const Tensor &input) { return F::relu(input); }
std::string ReLUImpl::extra_repr() const {
  return inplaceRepr(options.inplace(), "");
}

Tensor GELUImpl::forward(const Tensor &input) {
  return F::gelu(input,
                 F::GELUFuncOptions().approximate(options.approximate()));
}
std::string GELUImpl::extra_repr() const {
  return "approximate='" + options.approximate() + "'";
}

Tensor SiLUImpl::forward(const Tensor &input) { return F::silu(input); }
std::string SiLUImpl::extra_repr() const {
  return inplaceRepr(options.inplace(), "");
}
Tensor SigmoidImpl::forward(const Tensor &input) { return F::sigmoid(input); }
Tensor TanhImpl::forward(const Tensor &input) { return F::tanh(input); }
Tensor ReLU6Impl::forward(const Tensor &input) { return F::relu6(input); }
std::string ReLU6Impl::extra_repr() const {
  return inplaceRepr(options.inplace(), "");
}

PReLUImpl::PReLUImpl(const PReLUOptions &options_)
    : Cloneable("PReLU"), options(options_) {
  if (options.num_parameters() < 1)
    throw Error("PReLU: num_parameters must be at least 1, got " +
                std::to_string(options.num_parameters()));
  weight = Tensor::zeros({options.num_parameters()});
  register_parameter("weight", &weight);
  reset_parameters();
}

void PReLUImpl::reset_parameters() {
  float *slopes = weight.data_ptr<float>();
  for (int64_t i = 0; i < weight.numel(); ++i)
    slopes[i] = static_cast<float>(options.init());
}

Tensor PReLUImpl::forward(const Tensor &input) {
  return F::prelu(input, weight);
}

std::string PReLUImpl::extra_repr() const {
  return "num_parameters=" + std::to_string(options.num_parameters());
}

Tensor HardsigmoidImpl::forward(const Tensor &input) {
  return F::hardsigmoid(input);
}

Tensor HardswishImpl::forward(const Tensor &input) {
  return F::hardswish(input);
}

Tensor ELUImpl::forward(const Tensor &input) {
  return F::elu(input, options.alpha());
}
std::string ELUImpl::extra_repr() const {
  return "alpha=" + py_repr(options.alpha()) +
         inplaceRepr(options.inplace(), ", ");
}

Tensor LeakyReLUImpl::forward(const Tensor &input) {
  return F::leaky_relu(input, options.negative_slope());
}
std::string LeakyReLUImpl::extra_repr() const {
  return "negative_slope=" + py_repr(options.negative_slope()) +
         inplaceRepr(options.inplace(), ", ");
}

HardtanhImpl::HardtanhImpl(const HardtanhOptions &options_)
    : Cloneable("Hardtanh"), options(options_) {
  if (options.max_val() <= options.min_val())
    throw Error("Hardtanh: max_val (" + py_repr(options.max_val()) +
                ") must be greater than min_val (" +
                py_repr(options.min_val()) + ")");
}
Tensor HardtanhImpl::forward(const Tensor &input) {
  return F::hardtanh(input, options.min_val(), options.max_val());
}
std::string HardtanhImpl::extra_repr() const {
  return "min_val=" + py_repr(options.min_val()) +
         ", max_val=" + py_repr(options.max_val()) +
         inplaceRepr(options.inplace(), ", ");
}

Tensor SoftmaxImpl::forward(const Tensor &input) {
  return F::softmax(input, options.dim());
}
std::string SoftmaxImpl::extra_repr() const {
  return "dim=" + std::to_string(options.dim());
}

Tensor LogSoftmaxImpl::forward(const Tensor &input) {
  return F::log_softmax(input, options.dim());
}
std::string LogSoftmaxImpl::extra_repr() const {
  return "dim=" + std::to_string(options.dim());
}

Tensor SoftminImpl::forward(const Tensor &input) {
  return F::softmin(input, options.dim());
}
std::string SoftminImpl::extra_repr() const {
  return "dim=" + std::to_string(options.dim());
}

Tensor SELUImpl::forward(const Tensor &input) { return F::selu(input); }
std::string SELUImpl::extra_repr() const {
  return inplaceRepr(options.inplace(), "");
}

CELUImpl::CELUImpl(const CELUOptions &options_)
    : Cloneable("CELU"), options(options_) {
  if (options.alpha() == 0.0)
    throw Error("CELU: alpha must not be 0");
}
Tensor CELUImpl::forward(const Tensor &input) {
  return F::celu(input, options.alpha());
}
std::string CELUImpl::extra_repr() const {
  return "alpha=" + py_repr(options.alpha()) +
         inplaceRepr(options.inplace(), ", ");
}

Tensor SoftplusImpl::forward(const Tensor &input) {
  return F::softplus(input, options.beta(), options.threshold());
}
std::string SoftplusImpl::extra_repr() const {
  return "beta=" + pyNumber(options.beta()) +
         ", threshold=" + pyNumber(options.threshold());
}

Tensor MishImpl::forward(const Tensor &input) { return F::mish(input); }
std::string MishImpl::extra_repr() const {
  return inplaceRepr(options.inplace(), "");
}

Tensor LogSigmoidImpl::forward(const Tensor &input) {
  return F::logsigmoid(input);
}

Tensor SoftsignImpl::forward(const Tensor &input) { return F::softsign(input); }

Tensor TanhshrinkImpl::forward(const Tensor &input) {
  return F::tanhshrink(input);
}

Tensor HardshrinkImpl::forward(const Tensor &input) {
  return F::hardshrink(input, options.lambda());
}
std::string HardshrinkImpl::extra_repr() const {
  return py_repr(options.lambda());
}

SoftshrinkImpl::SoftshrinkImpl(const SoftshrinkOptions &options_)
    : Cloneable("Softshrink"), options(options_) {
  if (options.lambda() < 0.0)
    throw Error("Softshrink: lambda must be >= 0, got " +
                py_repr(options.lambda()));
}
Tensor SoftshrinkImpl::forward(const Tensor &input) {
  return F::softshrink(input, options.lambda());
}
std::string SoftshrinkImpl::extra_repr() const {
  return py_repr(options.lambda());
}

Tensor ThresholdImpl::forward(const Tensor &input) {
  return F::threshold(input, options.threshold(), options.value());
}
std::string ThresholdImpl::extra_repr() const {
  return "threshold=" + pyNumber(options.threshold()) +
         ", value=" + pyNumber(options.value()) +
         inplaceRepr(options.inplace(), ", ");
}

Tensor GLUImpl::forward(const Tensor &input) {
  return F::glu(input, options.dim());
}
std::string GLUImpl::extra_repr() const {
  return "dim=" + std::to_string(options.dim());
}

} // namespace nn
