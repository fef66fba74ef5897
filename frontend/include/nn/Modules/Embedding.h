//===- Embedding.h - Embedding layer ----------------------------*- C++ -*-===//
#ifndef NN_MODULES_EMBEDDING_H
#define NN_MODULES_EMBEDDING_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/Embedding.h"

namespace nn {

/// A lookup table of num_embeddings rows of embedding_dim; forward takes
/// int64 indices of any shape. See
/// https://pytorch.org/docs/stable/generated/torch.nn.Embedding.html
///   Embedding embed(EmbeddingOptions(10, 3).padding_idx(0));
class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(const EmbeddingOptions &options);

  /// PyTorch's initialization: normal_(0, 1), then the padding_idx row
  /// zeroed.
  void reset_parameters();
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  /// The options with padding_idx made non-negative, as PyTorch stores it.
  EmbeddingOptions options;
  Tensor weight; // [num_embeddings, embedding_dim]
};
NN_MODULE(Embedding);

} // namespace nn

#endif // NN_MODULES_EMBEDDING_H
