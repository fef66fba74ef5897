//===- Linear.h - Linear layer ----------------------------------*- C++ -*-===//
#ifndef NN_MODULES_LINEAR_H
#define NN_MODULES_LINEAR_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/Linear.h"

namespace nn {

/// y = x·Wᵀ + b. See
/// https://pytorch.org/docs/stable/generated/torch.nn.Linear.html
///   Linear fc(LinearOptions(784, 256).bias(false));
class LinearImpl : public Cloneable<LinearImpl> {
public:
  LinearImpl(int64_t in_features, int64_t out_features)
      : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions &options);
  /// A Linear that prints as `type_name`: PyTorch's
  /// NonDynamicallyQuantizableLinear (MultiheadAttention's out_proj) is a
  /// Linear by another name.
  LinearImpl(const LinearOptions &options, std::string type_name);

  /// PyTorch's initialization: kaiming_uniform_(a=√5) on the weight,
  /// uniform(±1/√in_features) on the bias.
  void reset_parameters();
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  LinearOptions options;
  Tensor weight; // [out_features, in_features]
  Tensor bias;   // [out_features], undefined when bias(false)
};
NN_MODULE(Linear);

} // namespace nn

#endif // NN_MODULES_LINEAR_H
