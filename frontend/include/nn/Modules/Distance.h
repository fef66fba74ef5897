//===- Distance.h - Similarity and distance layers --------------*- C++ -*-===//
//
// Layers around F::cosine_similarity and F::pairwise_distance
// (nn/Functional/Normalization.h); forward(x1, x2). As PyTorch's, they
// print without their options:
//
//   CosineSimilarity cos(CosineSimilarityOptions().dim(-1));
//   Tensor s = cos(a, b);
//
//===----------------------------------------------------------------------===//
#ifndef NN_MODULES_DISTANCE_H
#define NN_MODULES_DISTANCE_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Functional/Normalization.h"

namespace nn {

using CosineSimilarityOptions = functional::CosineSimilarityFuncOptions;
using PairwiseDistanceOptions = functional::PairwiseDistanceFuncOptions;

/// https://pytorch.org/docs/stable/generated/torch.nn.CosineSimilarity.html
class CosineSimilarityImpl : public Cloneable<CosineSimilarityImpl> {
public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions &options = {});
  Tensor forward(const Tensor &x1, const Tensor &x2);

  CosineSimilarityOptions options;
};
NN_MODULE(CosineSimilarity);

/// https://pytorch.org/docs/stable/generated/torch.nn.PairwiseDistance.html
class PairwiseDistanceImpl : public Cloneable<PairwiseDistanceImpl> {
public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions &options = {});
  Tensor forward(const Tensor &x1, const Tensor &x2);

  PairwiseDistanceOptions options;
};
NN_MODULE(PairwiseDistance);

} // namespace nn

#endif // NN_MODULES_DISTANCE_H
