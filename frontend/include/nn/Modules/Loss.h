//===- Loss.h - Loss layers -------------------------------------*- C++ -*-===//
//
// Layers around nn/Functional/Loss.h, as torch.nn's: forward(input, target)
// gives the loss. A class weight is a buffer named "weight", as in
// PyTorch. See https://pytorch.org/docs/stable/nn.html#loss-functions
//
//   CrossEntropyLoss criterion(CrossEntropyLossOptions().label_smoothing(0.1));
//   Tensor loss = criterion(logits, labels);
//
//===----------------------------------------------------------------------===//
#ifndef NN_MODULES_LOSS_H
#define NN_MODULES_LOSS_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/Loss.h"

namespace nn {

class MSELossImpl : public Cloneable<MSELossImpl> {
public:
  explicit MSELossImpl(const MSELossOptions &options = {});
  Tensor forward(const Tensor &input, const Tensor &target);

  MSELossOptions options;
};
NN_MODULE(MSELoss);

class L1LossImpl : public Cloneable<L1LossImpl> {
public:
  explicit L1LossImpl(const L1LossOptions &options = {});
  Tensor forward(const Tensor &input, const Tensor &target);

  L1LossOptions options;
};
NN_MODULE(L1Loss);

class NLLLossImpl : public Cloneable<NLLLossImpl> {
public:
  explicit NLLLossImpl(const NLLLossOptions &options = {});
  Tensor forward(const Tensor &input, const Tensor &target);

  NLLLossOptions options;
  Tensor weight; // [C] buffer, undefined without class weights
};
NN_MODULE(NLLLoss);

class CrossEntropyLossImpl : public Cloneable<CrossEntropyLossImpl> {
public:
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions &options = {});
  Tensor forward(const Tensor &input, const Tensor &target);

  CrossEntropyLossOptions options;
  Tensor weight; // [C] buffer, undefined without class weights
};
NN_MODULE(CrossEntropyLoss);

} // namespace nn

#endif // NN_MODULES_LOSS_H
