//===- Identity.h - Identity layer ------------------------------*- C++ -*-===//
#ifndef NN_MODULES_IDENTITY_H
#define NN_MODULES_IDENTITY_H

#include "nn/Frontend/ModuleHolder.h"

namespace nn {

/// Returns its input; a placeholder where a layer is optional.
/// See https://pytorch.org/docs/stable/generated/torch.nn.Identity.html
///   Identity skip;
class IdentityImpl : public Cloneable<IdentityImpl> {
public:
  IdentityImpl() : Cloneable("Identity") {}
  Tensor forward(const Tensor &input);
};
NN_MODULE(Identity);

} // namespace nn

#endif // NN_MODULES_IDENTITY_H
