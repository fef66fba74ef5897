//===- Distance.cpp - Similarity and distance layers ----------------------===//

#include "nn/Modules/Distance.h"

#include "nn/Functional.h"

namespace nn {

CosineSimilarityImpl::CosineSimilarityImpl(
    const CosineSimilarityOptions &options_)
    : Cloneable("CosineSimilarity"), options(options_) {}

Tensor CosineSimilarityImpl::forward(const Tensor &x1, const Tensor &x2) {
  return F::cosine_similarity(x1, x2, options);
}

PairwiseDistanceImpl::PairwiseDistanceImpl(
    const PairwiseDistanceOptions &options_)
    : Cloneable("PairwiseDistance"), options(options_) {}

Tensor PairwiseDistanceImpl::forward(const Tensor &x1, const Tensor &x2) {
  return F::pairwise_distance(x1, x2, options);
}

} // namespace nn
