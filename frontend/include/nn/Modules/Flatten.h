//===- Flatten.h - Flatten layer --------------------------------*- C++ -*-===//
#ifndef NN_MODULES_FLATTEN_H
#define NN_MODULES_FLATTEN_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/Flatten.h"

namespace nn {

/// Merges dimensions start_dim..end_dim (by default all but the batch one).
/// See https://pytorch.org/docs/stable/generated/torch.nn.Flatten.html
///   Flatten flat(FlattenOptions().start_dim(0));
class FlattenImpl : public Cloneable<FlattenImpl> {
public:
  explicit FlattenImpl(const FlattenOptions &options = {});

  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  FlattenOptions options;
};
NN_MODULE(Flatten);

} // namespace nn

#endif // NN_MODULES_FLATTEN_H
