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

/// torch.nn.modules.conv._ConvNd.extra_repr: the options that differ from
/// their defaults after the channels, kernel and stride. `padding` is
/// printed as given (empty: the default); `outputPadding` only for the
/// transposed layers.
template <size_t D>
std::string
convRepr(int64_t in, int64_t out, const ExpandingArray<D> &kernel,
         const ExpandingArray<D> &stride, const std::string &padding,
         const ExpandingArray<D> &dilation,
         const ExpandingArray<D> *outputPadding, int64_t groups, bool bias) {
  std::string s = std::to_string(in) + ", " + std::to_string(out) +
                  ", kernel_size=" + kernel.repr() +
                  ", stride=" + stride.repr();
  if (!padding.empty())
    s += ", padding=" + padding;
  if (!all(dilation, 1))
    s += ", dilation=" + dilation.repr();
  if (outputPadding && !all(*outputPadding, 0))
    s += ", output_padding=" + outputPadding->repr();
  if (groups != 1)
    s += ", groups=" + std::to_string(groups);
  if (!bias)
    s += ", bias=False";
  return s;
}

/// "Conv3d", "ConvTranspose1d": the layer's name for `D` dimensions.
template <size_t D> std::string layerName(const char *base) {
  return base + std::to_string(D) + "d";
}

/// [dim0, dim1, kernel_size...]: a convolution layer's weight shape.
template <size_t D>
Shape weightShape(int64_t dim0, int64_t dim1,
                  const ExpandingArray<D> &kernelSize) {
  Shape shape = {dim0, dim1};
  for (size_t i = 0; i < D; ++i)
    shape.push_back(kernelSize[i]);
  return shape;
}

/// Registers `weight` and `bias` (or an empty "bias" when `withBias` is
/// false) on `module`, shaped for `outChannels`, and initializes them.
void registerConvParameters(Module &module, Tensor &weight, Tensor &bias,
                            Shape shape, int64_t outChannels, bool withBias) {
  weight = Tensor::zeros(shape);
  module.register_parameter("weight", &weight);
  if (withBias) {
    bias = Tensor::zeros({outChannels});
    module.register_parameter("bias", &bias);
  } else {
    module.register_parameter("bias", nullptr);
  }
  resetConvParameters(weight, bias);
}

} // namespace

template <size_t D>
ConvNdImpl<D>::ConvNdImpl(const ConvOptions<D> &options_)
    : Module(layerName<D>("Conv")), options(options_) {
  std::string layer = layerName<D>("Conv");
  checkChannels(layer.c_str(), options.in_channels(), options.out_channels(),
                options.groups());
  if (std::holds_alternative<kSame_t>(options.padding()) &&
      !all(options.stride(), 1))
    throw Error(layer +
                ": padding='same' is not supported for strided convolutions");
  registerConvParameters(
      *this, weight, bias,
      weightShape<D>(options.out_channels(),
                     options.in_channels() / options.groups(),
                     options.kernel_size()),
      options.out_channels(), options.bias());
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
  else if constexpr (D == 2)
    return F::conv2d(input, weight, f);
  else
    return F::conv3d(input, weight, f);
}

template <size_t D> std::string ConvNdImpl<D>::extra_repr() const {
  std::string padding;
  if (auto *pad = std::get_if<ExpandingArray<D>>(&options.padding()))
    padding = all(*pad, 0) ? "" : pad->repr();
  else
    padding =
        std::holds_alternative<kSame_t>(options.padding()) ? "same" : "valid";
  return convRepr<D>(options.in_channels(), options.out_channels(),
                     options.kernel_size(), options.stride(), padding,
                     options.dilation(), nullptr, options.groups(),
                     options.bias());
}

template class ConvNdImpl<1>;
template class ConvNdImpl<2>;
template class ConvNdImpl<3>;

template <size_t D>
ConvTransposeNdImpl<D>::ConvTransposeNdImpl(
    const ConvTransposeOptions<D> &options_)
    : Module(layerName<D>("ConvTranspose")), options(options_) {
  checkChannels(layerName<D>("ConvTranspose").c_str(), options.in_channels(),
                options.out_channels(), options.groups());
  registerConvParameters(
      *this, weight, bias,
      weightShape<D>(options.in_channels(),
                     options.out_channels() / options.groups(),
                     options.kernel_size()),
      options.out_channels(), options.bias());
}

template <size_t D> void ConvTransposeNdImpl<D>::reset_parameters() {
  resetConvParameters(weight, bias);
}

template <size_t D>
Tensor ConvTransposeNdImpl<D>::forward(const Tensor &input) {
  ConvTransposeFuncOptions<D> f;
  f.bias(bias)
      .stride(options.stride())
      .padding(options.padding())
      .output_padding(options.output_padding())
      .groups(options.groups())
      .dilation(options.dilation());
  if constexpr (D == 1)
    return F::conv_transpose1d(input, weight, f);
  else if constexpr (D == 2)
    return F::conv_transpose2d(input, weight, f);
  else
    return F::conv_transpose3d(input, weight, f);
}

template <size_t D> std::string ConvTransposeNdImpl<D>::extra_repr() const {
  return convRepr<D>(options.in_channels(), options.out_channels(),
                     options.kernel_size(), options.stride(),
                     all(options.padding(), 0) ? "" : options.padding().repr(),
                     options.dilation(), &options.output_padding(),
                     options.groups(), options.bias());
}

template class ConvTransposeNdImpl<1>;
template class ConvTransposeNdImpl<2>;
template class ConvTransposeNdImpl<3>;

} // namespace nn
