//===- Loss.h - Loss layers -------------------------------------*- C++ -*-===//
//
// Layers around nn/Functional/Loss.h, as torch.nn's: forward(input, target)
// gives the loss. A class weight is a buffer named "weight" (and
// BCEWithLogitsLoss's pos_weight one named "pos_weight"), as in PyTorch. See
// https://pytorch.org/docs/stable/nn.html#loss-functions
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

class BCELossImpl : public Cloneable<BCELossImpl> {
public:
  explicit BCELossImpl(const BCELossOptions &options = {});
  Tensor forward(const Tensor &input, const Tensor &target);

  BCELossOptions options;
  Tensor weight; // buffer, undefined without a weight
};
NN_MODULE(BCELoss);

class BCEWithLogitsLossImpl : public Cloneable<BCEWithLogitsLossImpl> {
public:
  explicit BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions &options = {});
  Tensor forward(const Tensor &input, const Tensor &target);

  BCEWithLogitsLossOptions options;
  Tensor weight;     // buffer, undefined without a weight
  Tensor pos_weight; // buffer, undefined without one
};
NN_MODULE(BCEWithLogitsLoss);

class SmoothL1LossImpl : public Cloneable<SmoothL1LossImpl> {
public:
  explicit SmoothL1LossImpl(const SmoothL1LossOptions &options = {});
  Tensor forward(const Tensor &input, const Tensor &target);

  SmoothL1LossOptions options;
};
NN_MODULE(SmoothL1Loss);

class HuberLossImpl : public Cloneable<HuberLossImpl> {
public:
  explicit HuberLossImpl(const HuberLossOptions &options = {});
  Tensor forward(const Tensor &input, const Tensor &target);

  HuberLossOptions options;
};
NN_MODULE(HuberLoss);

class KLDivLossImpl : public Cloneable<KLDivLossImpl> {
public:
  explicit KLDivLossImpl(const KLDivLossOptions &options = {});
  Tensor forward(const Tensor &input, const Tensor &target);

  KLDivLossOptions options;
};
NN_MODULE(KLDivLoss);

} // namespace nn

#endif // NN_MODULES_LOSS_H
