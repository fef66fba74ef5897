//===- Conv.cpp - Convolution layers --------------------------------------===//

#include "nn/Modules/Conv.h"

#include "nn/Functional.h"
#include "nn/Init.h"

#include <cmath>

namespace nn {

namespace {

/// kaiming_uniform_(a=√5) on the weight, U(±1/√fan_in) on the bias, as
/// torch.nn.modules.conv._ConvNd.reset_parameters.
void resetConvParameters(Tensor &weight, Tensor &bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    int64_t fanIn = init::calculate_fan_in_and_fan_out(weight).first;
    double bound = fanIn > 0 ? 1.0 / std::sqrt(static_cast<double>(fanIn)) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

void checkChannels(const char *layer, int64_t in, int64_t out, int64_t groups) {
  if (groups < 1)
    throw Error(std::string(layer) +
                ": groups must be a positive integer, got " +
                std::to_string(groups));
  if (in % groups)
    throw Error(std::string(layer) + ": in_channels " + std::to_string(in) +
                " must be divisible by groups " + std::to_string(groups));
  if (out % groups)
    throw Error(std::string(layer) + ": out_channels " + std::to_string(out) +
                " must be divisible by groups " + std::to_string(groups));
}

template <size_t D> bool all(const ExpandingArray<D> &a, int64_t v) {
  return a == ExpandingArray<D>(v);
}

} // namespace

template <size_t D>
ConvNdImpl<D>::ConvNdImpl(const ConvOptions<D> &options_)
    : Module(D == 1 ? "Conv1d" : "Conv2d"), options(options_) {
  const char *layer = D == 1 ? "Conv1d" : "Conv2d";
  checkChannels(layer, options.in_channels(), options.out_channels(),
                options.groups());
  if (std::holds_alternative<kSame_t>(options.padding()) &&
      !all(options.stride(), 1))
    throw Error(std::string(layer) +
                ": padding='same' is not supported for strided convolutions");
  Shape shape = {options.out_channels(),
                 options.in_channels() / options.groups()};
  for (size_t i = 0; i < D; ++i)
    shape.push_back(options.kernel_size()[i]);
  weight = Tensor::zeros(shape);
  register_parameter("weight", &weight);
  if (options.bias()) {
    bias = Tensor::zeros({options.out_channels()});
    register_parameter("bias", &bias);
  } else {
    register_parameter("bias", nullptr);
  }
  reset_parameters();
}

template <size_t D> void ConvNdImpl<D>::reset_parameters() {
  resetConvParameters(weight, bias);
}

template <size_t D> Tensor ConvNdImpl<D>::forward(const Tensor &input) {
  ConvFuncOptions<D> f;
  f.bias(bias)
      .stride(options.stride())
      .padding(options.padding())
      .dilation(options.dilation())
      .groups(options.groups());
  if constexpr (D == 1)
    return F::conv1d(input, weight, f);
  else
    return F::conv2d(input, weight, f);
}

template <size_t D> std::string ConvNdImpl<D>::extra_repr() const {
  // torch.nn.modules.conv._ConvNd.extra_repr
  std::string s = std::to_string(options.in_channels()) + ", " +
                  std::to_string(options.out_channels()) +
                  ", kernel_size=" + options.kernel_size().repr() +
                  ", stride=" + options.stride().repr();
  if (auto *pad = std::get_if<ExpandingArray<D>>(&options.padding())) {
    if (!all(*pad, 0))
      s += ", padding=" + pad->repr();
  } else {
    s += std::holds_alternative<kSame_t>(options.padding()) ? ", padding=same"
                                                            : ", padding=valid";
  }
  if (!all(options.dilation(), 1))
    s += ", dilation=" + options.dilation().repr();
  if (options.groups() != 1)
    s += ", groups=" + std::to_string(options.groups());
  if (!options.bias())
    s += ", bias=False";
  return s;
}

template class ConvNdImpl<1>;
template class ConvNdImpl<2>;

ConvTranspose2dImpl::ConvTranspose2dImpl(const ConvTranspose2dOptions &options_)
    : Cloneable("ConvTranspose2d"), options(options_) {
  checkChannels("ConvTranspose2d", options.in_channels(),
                options.out_channels(), options.groups());
  weight = Tensor::zeros({options.in_channels(),
                          options.out_channels() / options.groups(),
                          options.kernel_size()[0], options.kernel_size()[1]});
  register_parameter("weight", &weight);
  if (options.bias()) {
    bias = Tensor::zeros({options.out_channels()});
    register_parameter("bias", &bias);
  } else {
    register_parameter("bias", nullptr);
  }
  reset_parameters();
}

void ConvTranspose2dImpl::reset_parameters() {
  resetConvParameters(weight, bias);
}

Tensor ConvTranspose2dImpl::forward(const Tensor &input) {
  return F::conv_transpose2d(input, weight,
                             F::ConvTranspose2dFuncOptions()
                                 .bias(bias)
                                 .stride(options.stride())
                                 .padding(options.padding())
                                 .output_padding(options.output_padding())
                                 .groups(options.groups())
                                 .dilation(options.dilation()));
}

std::string ConvTranspose2dImpl::extra_repr() const {
  std::string s = std::to_string(options.in_channels()) + ", " +
                  std::to_string(options.out_channels()) +
                  ", kernel_size=" + options.kernel_size().repr() +
                  ", stride=" + options.stride().repr();
  if (!all(options.padding(), 0))
    s += ", padding=" + options.padding().repr();
  if (!all(options.dilation(), 1))
    s += ", dilation=" + options.dilation().repr();
  if (!all(options.output_padding(), 0))
    s += ", output_padding=" + options.output_padding().repr();
  if (options.groups() != 1)
    s += ", groups=" + std::to_string(options.groups());
  if (!options.bias())
    s += ", bias=False";
  return s;
}

} // namespace nn
