//===- Pooling.h - Pooling layers -------------------------------*- C++ -*-===//
#ifndef NN_MODULES_POOLING_H
#define NN_MODULES_POOLING_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/Convolution.h"

namespace nn {

/// See https://pytorch.org/docs/stable/generated/torch.nn.MaxPool2d.html
///   MaxPool2d pool(MaxPool2dOptions(3).stride(2).padding(1));
class MaxPool2dImpl : public Cloneable<MaxPool2dImpl> {
public:
  explicit MaxPool2dImpl(const MaxPool2dOptions &options);
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  MaxPool2dOptions options;
};
NN_MODULE(MaxPool2d);

/// See https://pytorch.org/docs/stable/generated/torch.nn.AvgPool2d.html
///   AvgPool2d pool(AvgPool2dOptions(2));
class AvgPool2dImpl : public Cloneable<AvgPool2dImpl> {
public:
  explicit AvgPool2dImpl(const AvgPool2dOptions &options);
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  AvgPool2dOptions options;
};
NN_MODULE(AvgPool2d);

/// See
/// https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveAvgPool2d.html
///   AdaptiveAvgPool2d pool(AdaptiveAvgPool2dOptions({7, 7}));
class AdaptiveAvgPool2dImpl : public Cloneable<AdaptiveAvgPool2dImpl> {
public:
  explicit AdaptiveAvgPool2dImpl(const AdaptiveAvgPool2dOptions &options);
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  AdaptiveAvgPool2dOptions options;
};
NN_MODULE(AdaptiveAvgPool2d);

} // namespace nn

#endif // NN_MODULES_POOLING_H
