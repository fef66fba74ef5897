//===- Dropout.h - Dropout layer --------------------------------*- C++ -*-===//
#ifndef NN_MODULES_DROPOUT_H
#define NN_MODULES_DROPOUT_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/Dropout.h"

namespace nn {

/// Zeroes elements with probability p while training; the identity in eval.
/// See https://pytorch.org/docs/stable/generated/torch.nn.Dropout.html
class DropoutImpl : public Cloneable<DropoutImpl> {
public:
  explicit DropoutImpl(const DropoutOptions &options = {});
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  DropoutOptions options;
};
NN_MODULE(Dropout);

} // namespace nn

#endif // NN_MODULES_DROPOUT_H
