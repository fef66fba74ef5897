//===- Transformer.h - Attention and Transformer encoder layers -*- C++ -*-===//
//
// MultiheadAttention, TransformerEncoderLayer and TransformerEncoder with
// PyTorch's parameter names, initialization, printout and (eval-mode)
// numerics. Masks follow PyTorch's MultiheadAttention convention: a bool
// mask is true where attention is NOT allowed, a float mask is added.
//
//===----------------------------------------------------------------------===//
#ifndef NN_MODULES_TRANSFORMER_H
#define NN_MODULES_TRANSFORMER_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Modules/Container.h"
#include "nn/Modules/Dropout.h"
#include "nn/Modules/LayerNorm.h"
#include "nn/Modules/Linear.h"
#include "nn/Options/Transformer.h"

#include <tuple>

namespace nn {

/// Multi-head attention over [seq, batch, embed] inputs ([batch, seq, embed]
/// with batch_first; [seq, embed] unbatched). See
/// https://pytorch.org/docs/stable/generated/torch.nn.MultiheadAttention.html
///   MultiheadAttention mha(MultiheadAttentionOptions(16,
///   4).batch_first(true)); auto [out, weights] = mha(x, x, x);
class MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(
            MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions &options);

  /// PyTorch's _reset_parameters: xavier_uniform_ on the projection
  /// weights, zero in_proj_bias and out_proj.bias.
  void reset_parameters();
  /// (attn_output, attn_weights): attn_weights is undefined unless
  /// need_weights, [batch, L, S] averaged over heads (or [batch, heads, L,
  /// S] without average_attn_weights). is_causal is PyTorch 2.x's hint that
  /// attn_mask is the causal mask (attn_mask is required).
  std::tuple<Tensor, Tensor>
  forward(const Tensor &query, const Tensor &key, const Tensor &value,
          const Tensor &key_padding_mask = {}, bool need_weights = true,
          const Tensor &attn_mask = {}, bool average_attn_weights = true,
          bool is_causal = false);

  MultiheadAttentionOptions options;
  int64_t head_dim;
  /// kdim == vdim == embed_dim: one packed in_proj_weight.
  bool qkv_same_embed_dim;
  Tensor in_proj_weight; // [3·embed, embed]; undefined unless packed
  Tensor q_proj_weight;  // [embed, embed]; undefined when packed
  Tensor k_proj_weight;  // [embed, kdim]; undefined when packed
  Tensor v_proj_weight;  // [embed, vdim]; undefined when packed
  Tensor in_proj_bias;   // [3·embed]; undefined without bias
  Tensor bias_k, bias_v; // [1, 1, embed]; undefined without add_bias_kv
  /// Prints as NonDynamicallyQuantizableLinear, as in PyTorch.
  Linear out_proj{nullptr};
};
/// The holder also takes forward's arguments by their declared types, so
/// that `mha(x, x, x, {}, false)` compiles (a braced `{}` cannot be
/// forwarded through a template).
class MultiheadAttention : public ModuleHolder<MultiheadAttentionImpl> {
public:
  using ModuleHolder<MultiheadAttentionImpl>::ModuleHolder;
  using ModuleHolder<MultiheadAttentionImpl>::operator();
  using Impl = MultiheadAttentionImpl;

  std::tuple<Tensor, Tensor>
  operator()(const Tensor &query, const Tensor &key, const Tensor &value,
             const Tensor &key_padding_mask = {}, bool need_weights = true,
             const Tensor &attn_mask = {}, bool average_attn_weights = true,
             bool is_causal = false) const {
    return ModuleHolder::operator()(query, key, value, key_padding_mask,
                                    need_weights, attn_mask,
                                    average_attn_weights, is_causal);
  }
};

/// Self-attention and a feed-forward block, each with a residual and
/// LayerNorm (post-norm, or pre-norm with norm_first). See
/// https://pytorch.org/docs/stable/generated/torch.nn.TransformerEncoderLayer.html
///   TransformerEncoderLayer layer(TransformerEncoderLayerOptions(16, 4)
///                                     .dim_feedforward(32).batch_first(true));
class TransformerEncoderLayerImpl
    : public Cloneable<TransformerEncoderLayerImpl> {
public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(
            TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(
      const TransformerEncoderLayerOptions &options);

  Tensor forward(const Tensor &src, const Tensor &src_mask = {},
                 const Tensor &src_key_padding_mask = {},
                 bool is_causal = false);

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn{nullptr};
  Linear linear1{nullptr};
  Dropout dropout{nullptr};
  Linear linear2{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr};
  Dropout dropout1{nullptr}, dropout2{nullptr};

private:
  Tensor self_attention_block(const Tensor &x, const Tensor &mask,
                              const Tensor &key_padding_mask, bool is_causal);
  Tensor feed_forward_block(const Tensor &x);
};
NN_MODULE(TransformerEncoderLayer);

/// TransformerEncoder(TransformerEncoderOptions(layer, 6).norm(LayerNorm(...)))
struct TransformerEncoderOptions {
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer,
                            int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  NN_ARG(TransformerEncoderLayer, encoder_layer);
  NN_ARG(int64_t, num_layers);
  /// Applied after the last layer when set.
  NN_ARG(LayerNorm, norm) = nullptr;
};

/// num_layers clones of encoder_layer (`layers.0`, `layers.1`, …: each an
/// independent deep copy, as PyTorch's copy.deepcopy makes them), then the
/// optional norm. See
/// https://pytorch.org/docs/stable/generated/torch.nn.TransformerEncoder.html
class TransformerEncoderImpl : public Cloneable<TransformerEncoderImpl> {
public:
  TransformerEncoderImpl(TransformerEncoderLayer encoder_layer,
                         int64_t num_layers)
      : TransformerEncoderImpl(
            TransformerEncoderOptions(std::move(encoder_layer), num_layers)) {}
  explicit TransformerEncoderImpl(const TransformerEncoderOptions &options);

  Tensor forward(const Tensor &src, const Tensor &mask = {},
                 const Tensor &src_key_padding_mask = {},
                 bool is_causal = false);

  TransformerEncoderOptions options;
  ModuleList layers{nullptr};
  LayerNorm norm{nullptr};
};
NN_MODULE(TransformerEncoder);

} // namespace nn

#endif // NN_MODULES_TRANSFORMER_H
