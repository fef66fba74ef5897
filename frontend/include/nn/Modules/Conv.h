//===- Conv.h - Convolution layers ------------------------------*- C++ -*-===//
#ifndef NN_MODULES_CONV_H
#define NN_MODULES_CONV_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/Convolution.h"

namespace nn {

/// Conv1d / Conv2d over batched input ([N, C, L] / [N, C, H, W]).
/// See https://pytorch.org/docs/stable/generated/torch.nn.Conv2d.html
///   Conv2d conv(Conv2dOptions(3, 32, 3).stride(2).padding(1).bias(false));
template <size_t D> class ConvNdImpl : public Module {
public:
  ConvNdImpl(int64_t in_channels, int64_t out_channels,
             ExpandingArray<D> kernel_size)
      : ConvNdImpl(ConvOptions<D>(in_channels, out_channels, kernel_size)) {}
  explicit ConvNdImpl(const ConvOptions<D> &options);

  /// PyTorch's initialization: kaiming_uniform_(a=√5) on the weight,
  /// uniform(±1/√fan_in) on the bias.
  void reset_parameters();
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  ConvOptions<D> options;
  Tensor weight; // [out_channels, in_channels / groups, kernel_size...]
  Tensor bias;   // [out_channels], undefined when bias(false)
};

class Conv1dImpl : public Cloneable<Conv1dImpl, ConvNdImpl<1>> {
public:
  using Cloneable::Cloneable;
};
class Conv2dImpl : public Cloneable<Conv2dImpl, ConvNdImpl<2>> {
public:
  using Cloneable::Cloneable;
};
NN_MODULE(Conv1d);
NN_MODULE(Conv2d);

/// ConvTranspose2d over [N, C, H, W].
/// See https://pytorch.org/docs/stable/generated/torch.nn.ConvTranspose2d.html
///   ConvTranspose2d up(ConvTranspose2dOptions(16, 8,
///   3).stride(2).padding(1).output_padding(1));
class ConvTranspose2dImpl : public Cloneable<ConvTranspose2dImpl> {
public:
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels,
                      ExpandingArray<2> kernel_size)
      : ConvTranspose2dImpl(
            ConvTranspose2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit ConvTranspose2dImpl(const ConvTranspose2dOptions &options);

  /// As ConvNd's (fan_in from the [in, out / groups, k...] weight).
  void reset_parameters();
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  ConvTranspose2dOptions options;
  Tensor weight; // [in_channels, out_channels / groups, kh, kw]
  Tensor bias;   // [out_channels], undefined when bias(false)
};
NN_MODULE(ConvTranspose2d);

} // namespace nn

#endif // NN_MODULES_CONV_H
