//===- Transformer.h - Options of the attention and Transformer layers -*- C++
//-*-===//
#ifndef NN_OPTIONS_TRANSFORMER_H
#define NN_OPTIONS_TRANSFORMER_H

#include "nn/Frontend/Arg.h"

#include <cstdint>
#include <optional>
#include <string>

namespace nn {

/// MultiheadAttention(MultiheadAttentionOptions(512, 8).batch_first(true))
struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads) {}
  NN_ARG(int64_t, embed_dim);
  NN_ARG(int64_t, num_heads);
  /// Dropout on the attention weights while training.
  NN_ARG(double, dropout) = 0.0;
  NN_ARG(bool, bias) = true;
  /// Learned bias_k/bias_v ([1, 1, embed], xavier_normal_) appended to the
  /// keys and values as one more source position.
  NN_ARG(bool, add_bias_kv) = false;
  /// Appends one more source position whose key and value are zero.
  NN_ARG(bool, add_zero_attn) = false;
  /// Key and value feature sizes; embed_dim when absent. Either differing
  /// gives separate q/k/v_proj_weight parameters instead of in_proj_weight.
  NN_ARG(std::optional<int64_t>, kdim);
  NN_ARG(std::optional<int64_t>, vdim);
  /// Inputs are [batch, seq, feature] instead of [seq, batch, feature].
  NN_ARG(bool, batch_first) = false;
};

/// TransformerEncoderLayer(TransformerEncoderLayerOptions(512, 8)
///                             .dim_feedforward(1024).activation("gelu"))
struct TransformerEncoderLayerOptions {
  TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead)
      : d_model_(d_model), nhead_(nhead) {}
  NN_ARG(int64_t, d_model);
  NN_ARG(int64_t, nhead);
  NN_ARG(int64_t, dim_feedforward) = 2048;
  NN_ARG(double, dropout) = 0.1;
  /// "relu" or "gelu".
  NN_ARG(std::string, activation) = "relu";
  NN_ARG(double, layer_norm_eps) = 1e-5;
  NN_ARG(bool, batch_first) = false;
  /// Pre-norm (LayerNorm before attention and feed-forward) instead of
  /// post-norm.
  NN_ARG(bool, norm_first) = false;
};

} // namespace nn

#endif // NN_OPTIONS_TRANSFORMER_H
