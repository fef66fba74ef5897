//===- Loss.h - Options of the loss layers and functions --------*- C++ -*-===//
//
// libtorch's loss options, shared by the layers (CrossEntropyLoss(options))
// and the functions (F::cross_entropy(x, t, CrossEntropyFuncOptions())):
//
//   F::cross_entropy(logits, target, F::CrossEntropyFuncOptions()
//                                        .ignore_index(0)
//                                        .label_smoothing(0.1)
//                                        .reduction(nn::kSum));
//
//===----------------------------------------------------------------------===//
#ifndef NN_OPTIONS_LOSS_H
#define NN_OPTIONS_LOSS_H

#include "nn/Frontend/Arg.h"
#include "nn/Runtime/Tensor.h"

#include <cstdint>
#include <string>

namespace nn {

/// torch.nn's `reduction` argument. BatchMean (the sum over the batch size,
/// dim 0) is kl_div's alone; the other losses refuse it, as PyTorch does.
enum class Reduction { None, Mean, Sum, BatchMean };
inline constexpr Reduction kNone = Reduction::None;
inline constexpr Reduction kMean = Reduction::Mean;
inline constexpr Reduction kSum = Reduction::Sum;
inline constexpr Reduction kBatchMean = Reduction::BatchMean;

/// "none", "mean", "sum", "batchmean", as PyTorch spells them.
std::string reduction_name(Reduction reduction);

/// MSELoss(MSELossOptions(kSum)).
struct MSELossOptions {
  MSELossOptions(Reduction reduction = kMean) : reduction_(reduction) {}
  NN_ARG(Reduction, reduction);
};

/// L1Loss(L1LossOptions(kSum)).
struct L1LossOptions {
  L1LossOptions(Reduction reduction = kMean) : reduction_(reduction) {}
  NN_ARG(Reduction, reduction);
};

/// NLLLoss(NLLLossOptions().weight(w).ignore_index(0)).
struct NLLLossOptions {
  /// A [C] weight per class; undefined: every class weighs 1.
  NN_ARG(Tensor, weight);
  NN_ARG(int64_t, ignore_index) = -100;
  NN_ARG(Reduction, reduction) = kMean;
};

/// CrossEntropyLoss(CrossEntropyLossOptions().label_smoothing(0.1)).
struct CrossEntropyLossOptions {
  NN_ARG(Tensor, weight);
  NN_ARG(int64_t, ignore_index) = -100;
  NN_ARG(Reduction, reduction) = kMean;
  /// In [0, 1]: the target mixed with the uniform distribution.
  NN_ARG(double, label_smoothing) = 0.0;
};

/// BCELoss(BCELossOptions().weight(w)): the weight rescales each element's
/// loss (broadcast to the input's shape).
struct BCELossOptions {
  NN_ARG(Tensor, weight);
  NN_ARG(Reduction, reduction) = kMean;
};

/// BCEWithLogitsLoss(BCEWithLogitsLossOptions().pos_weight(p)): pos_weight
/// weighs the positive term per class (broadcast along the last dim).
struct BCEWithLogitsLossOptions {
  NN_ARG(Tensor, weight);
  NN_ARG(Reduction, reduction) = kMean;
  NN_ARG(Tensor, pos_weight);
};

/// SmoothL1Loss(SmoothL1LossOptions().beta(0.5)): quadratic below beta
/// (>= 0; 0 is L1Loss).
struct SmoothL1LossOptions {
  NN_ARG(Reduction, reduction) = kMean;
  NN_ARG(double, beta) = 1.0;
};

/// HuberLoss(HuberLossOptions().delta(2)): quadratic below delta (> 0).
struct HuberLossOptions {
  NN_ARG(Reduction, reduction) = kMean;
  NN_ARG(double, delta) = 1.0;
};

/// KLDivLoss(KLDivLossOptions(nn::kBatchMean).log_target(true)): the input
/// is log-probabilities, the target probabilities (log-probabilities with
/// log_target). PyTorch's default reduction, mean, averages over every
/// element; batchmean is the KL divergence's own definition.
struct KLDivLossOptions {
  KLDivLossOptions(Reduction reduction = kMean) : reduction_(reduction) {}
  NN_ARG(Reduction, reduction);
  NN_ARG(bool, log_target) = false;
};

namespace functional {
using MSELossFuncOptions = MSELossOptions;
using L1LossFuncOptions = L1LossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using KLDivFuncOptions = KLDivLossOptions;
} // namespace functional

} // namespace nn

#endif // NN_OPTIONS_LOSS_H
