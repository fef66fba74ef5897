//===- Embedding.h - Options of Embedding and F::embedding ------*- C++ -*-===//
#ifndef NN_OPTIONS_EMBEDDING_H
#define NN_OPTIONS_EMBEDDING_H

#include "nn/Frontend/Arg.h"

#include <cstdint>
#include <optional>

namespace nn {

/// Embedding(EmbeddingOptions(10, 3).padding_idx(0))
struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  NN_ARG(int64_t, num_embeddings);
  NN_ARG(int64_t, embedding_dim);
  /// This row is zero at initialization (and, in PyTorch, gets no gradient).
  /// Negative counts from the end, as in PyTorch.
  NN_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

namespace functional {

/// F::embedding(ids, weight, F::EmbeddingFuncOptions().padding_idx(0))
struct EmbeddingFuncOptions {
  /// Checked against the weight like PyTorch; it does not change the forward
  /// result (it only matters for gradients).
  NN_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

} // namespace functional
} // namespace nn

#endif // NN_OPTIONS_EMBEDDING_H
