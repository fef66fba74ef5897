//===- Conv.h - Convolution layers ------------------------------*- C++ -*-===//
#ifndef NN_MODULES_CONV_H
#define NN_MODULES_CONV_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/Convolution.h"

namespace nn {

/// Conv1d / Conv2d / Conv3d over batched input ([N, C, L] / [N, C, H, W] /
/// [N, C, D, H, W]).
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
class Conv3dImpl : public Cloneable<Conv3dImpl, ConvNdImpl<3>> {
public:
  using Cloneable::Cloneable;
};
NN_MODULE(Conv1d);
NN_MODULE(Conv2d);
NN_MODULE(Conv3d);

/// ConvTranspose1d / 2d / 3d over batched input.
/// See https://pytorch.org/docs/stable/generated/torch.nn.ConvTranspose2d.html
///   ConvTranspose2d up(ConvTranspose2dOptions(16, 8,
///   3).stride(2).padding(1).output_padding(1));
template <size_t D> class ConvTransposeNdImpl : public Module {
public:
  ConvTransposeNdImpl(int64_t in_channels, int64_t out_channels,
                      ExpandingArray<D> kernel_size)
      : ConvTransposeNdImpl(
            ConvTransposeOptions<D>(in_channels, out_channels, kernel_size)) {}
  explicit ConvTransposeNdImpl(const ConvTransposeOptions<D> &options);

  /// As ConvNd's (fan_in from the [in, out / groups, k...] weight).
  void reset_parameters();
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  ConvTransposeOptions<D> options;
  Tensor weight; // [in_channels, out_channels / groups, kernel_size...]
  Tensor bias;   // [out_channels], undefined when bias(false)
};

class ConvTranspose1dImpl
    : public Cloneable<ConvTranspose1dImpl, ConvTransposeNdImpl<1>> {
public:
  using Cloneable::Cloneable;
};
class ConvTranspose2dImpl
    : public Cloneable<ConvTranspose2dImpl, ConvTransposeNdImpl<2>> {
public:
  using Cloneable::Cloneable;
};
class ConvTranspose3dImpl
    : public Cloneable<ConvTranspose3dImpl, ConvTransposeNdImpl<3>> {
public:
  using Cloneable::Cloneable;
};
NN_MODULE(ConvTranspose1d);
NN_MODULE(ConvTranspose2d);
NN_MODULE(ConvTranspose3d);

} // namespace nn

#endif // NN_MODULES_CONV_H
