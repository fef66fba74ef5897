//===- Pooling.h - Pooling layers -------------------------------*- C++ -*-===//
#ifndef NN_MODULES_POOLING_H
#define NN_MODULES_POOLING_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/Convolution.h"

namespace nn {

/// MaxPool1d / MaxPool2d / MaxPool3d over batched input ([N, C, L] /
/// [N, C, H, W] / [N, C, D, H, W]).
/// See https://pytorch.org/docs/stable/generated/torch.nn.MaxPool2d.html
///   MaxPool2d pool(MaxPool2dOptions(3).stride(2).padding(1));
template <size_t D> class MaxPoolNdImpl : public Module {
public:
  explicit MaxPoolNdImpl(const MaxPoolOptions<D> &options);
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  MaxPoolOptions<D> options;
};

/// AvgPool1d / AvgPool2d / AvgPool3d.
/// See https://pytorch.org/docs/stable/generated/torch.nn.AvgPool2d.html
///   AvgPool2d pool(AvgPool2dOptions(2));
template <size_t D> class AvgPoolNdImpl : public Module {
public:
  explicit AvgPoolNdImpl(const AvgPoolOptions<D> &options);
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  AvgPoolOptions<D> options;
};

/// AdaptiveAvgPool1d / AdaptiveAvgPool2d / AdaptiveAvgPool3d.
/// See
/// https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveAvgPool2d.html
///   AdaptiveAvgPool2d pool(AdaptiveAvgPool2dOptions({7, 7}));
template <size_t D> class AdaptiveAvgPoolNdImpl : public Module {
public:
  explicit AdaptiveAvgPoolNdImpl(const AdaptiveAvgPoolOptions<D> &options);
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  AdaptiveAvgPoolOptions<D> options;
};

class MaxPool1dImpl : public Cloneable<MaxPool1dImpl, MaxPoolNdImpl<1>> {
public:
  using Cloneable::Cloneable;
};
class MaxPool2dImpl : public Cloneable<MaxPool2dImpl, MaxPoolNdImpl<2>> {
public:
  using Cloneable::Cloneable;
};
class MaxPool3dImpl : public Cloneable<MaxPool3dImpl, MaxPoolNdImpl<3>> {
public:
  using Cloneable::Cloneable;
};
NN_MODULE(MaxPool1d);
NN_MODULE(MaxPool2d);
NN_MODULE(MaxPool3d);

class AvgPool1dImpl : public Cloneable<AvgPool1dImpl, AvgPoolNdImpl<1>> {
public:
  using Cloneable::Cloneable;
};
class AvgPool2dImpl : public Cloneable<AvgPool2dImpl, AvgPoolNdImpl<2>> {
public:
  using Cloneable::Cloneable;
};
class AvgPool3dImpl : public Cloneable<AvgPool3dImpl, AvgPoolNdImpl<3>> {
public:
  using Cloneable::Cloneable;
};
NN_MODULE(AvgPool1d);
NN_MODULE(AvgPool2d);
NN_MODULE(AvgPool3d);

class AdaptiveAvgPool1dImpl
    : public Cloneable<AdaptiveAvgPool1dImpl, AdaptiveAvgPoolNdImpl<1>> {
public:
  using Cloneable::Cloneable;
};
class AdaptiveAvgPool2dImpl
    : public Cloneable<AdaptiveAvgPool2dImpl, AdaptiveAvgPoolNdImpl<2>> {
public:
  using Cloneable::Cloneable;
};
class AdaptiveAvgPool3dImpl
    : public Cloneable<AdaptiveAvgPool3dImpl, AdaptiveAvgPoolNdImpl<3>> {
public:
  using Cloneable::Cloneable;
};
NN_MODULE(AdaptiveAvgPool1d);
NN_MODULE(AdaptiveAvgPool2d);
NN_MODULE(AdaptiveAvgPool3d);

} // namespace nn

#endif // NN_MODULES_POOLING_H
