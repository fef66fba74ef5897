//===- Common.h - Pieces the zoo's transformers share -----------*- C++ -*-===//
//
// The tensor plumbing that Hugging Face's and torchvision's transformers
// write inline in each model: position ids made in forward, the split of
// the features into attention heads and back, and the first token's
// features (a class token, BERT's [CLS]).
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_ZOO_COMMON_H
#define NN_EXAMPLES_ZOO_COMMON_H

#include "nn/nn.h"

namespace nn::zoo {

/// arange(length)[None] as int64 [1, length]: position ids made in forward
/// (a constant of the trace). nn::Error naming `model` when the model has
/// fewer than `length` positions.
Tensor positionIds(const char *model, int64_t length, int64_t positions);

/// [B, T, heads · D] → [B, heads, T, D].
Tensor splitHeads(const Tensor &x, int64_t heads);
/// [B, heads, T, D] → [B, T, heads · D].
Tensor mergeHeads(const Tensor &x);

/// x[:, 0] for x [B, T, E]: the first token's features, [B, E].
Tensor firstToken(const Tensor &x);

} // namespace nn::zoo

#endif // NN_EXAMPLES_ZOO_COMMON_H
