//===- Transformer.cpp - Attention and Transformer encoder layers ---------===//
//
// MultiheadAttention follows PyTorch 1.13's F.multi_head_attention_forward
// (with 2.x's is_causal hint): heads are a [batch, heads, seq, head_dim]
// view, masks become one additive float mask, and attention is
// F::scaled_dot_product_attention (with dropout_p while training) unless the
// weights are needed, when it is spelled out as PyTorch does:
// dropout(softmax(q / √head_dim · kᵀ + mask)) · v. Both draw the same
// dropout mask. add_bias_kv and add_zero_attn append key/value positions
// (bias_k/bias_v, zeros) that every mask lets each query attend.
//
//===----------------------------------------------------------------------===//

#include "nn/Modules/Transformer.h"

#include "nn/Frontend/Repr.h"
#include "nn/Functional.h"
#include "nn/Init.h"

#include "../ModuleError.h"

#include <cmath>

namespace nn {

namespace {

std::string shapeText(const Tensor &t) { return shape_str(t.shape()); }

/// The same symbolic value (PyTorch's `query is key`).
bool same(const Tensor &a, const Tensor &b) {
  return a.node() && a.node() == b.node();
}

} // namespace

//===----------------------------------------------------------------------===//
// MultiheadAttention
//===----------------------------------------------------------------------===//

MultiheadAttentionImpl::MultiheadAttentionImpl(
    const MultiheadAttentionOptions &options_)
    : Cloneable("MultiheadAttention"), options(options_) {
  const int64_t embed = options.embed_dim(), heads = options.num_heads();
  if (embed <= 0 || heads <= 0 || embed % heads != 0)
    throw Error("MultiheadAttention: embed_dim (" + std::to_string(embed) +
                ") must be divisible by num_heads (" + std::to_string(heads) +
                ")");
  head_dim = embed / heads;
  const int64_t kdim = options.kdim().value_or(embed);
  const int64_t vdim = options.vdim().value_or(embed);
  qkv_same_embed_dim = kdim == embed && vdim == embed;
  // Registration order is PyTorch's (it decides the state_dict's).
  if (qkv_same_embed_dim) {
    in_proj_weight = Tensor::zeros({3 * embed, embed});
    register_parameter("in_proj_weight", &in_proj_weight);
    register_parameter("q_proj_weight", nullptr);
    register_parameter("k_proj_weight", nullptr);
    register_parameter("v_proj_weight", nullptr);
  } else {
    q_proj_weight = Tensor::zeros({embed, embed});
    k_proj_weight = Tensor::zeros({embed, kdim});
    v_proj_weight = Tensor::zeros({embed, vdim});
    register_parameter("q_proj_weight", &q_proj_weight);
    register_parameter("k_proj_weight", &k_proj_weight);
    register_parameter("v_proj_weight", &v_proj_weight);
    register_parameter("in_proj_weight", nullptr);
  }
  if (options.bias()) {
    in_proj_bias = Tensor::zeros({3 * embed});
    register_parameter("in_proj_bias", &in_proj_bias);
  } else {
    register_parameter("in_proj_bias", nullptr);
  }
  // Linear's own initialization draws first, as in PyTorch.
  out_proj = register_module(
      "out_proj", Linear(std::make_shared<LinearImpl>(
                      LinearOptions(embed, embed).bias(options.bias()),
                      "NonDynamicallyQuantizableLinear")));
  // Without add_bias_kv PyTorch assigns None (no registration), so the
  // names do not exist at all.
  if (options.add_bias_kv()) {
    bias_k = Tensor::zeros({1, 1, embed});
    bias_v = Tensor::zeros({1, 1, embed});
    register_parameter("bias_k", &bias_k);
    register_parameter("bias_v", &bias_v);
  }
  reset_parameters();
}

void MultiheadAttentionImpl::reset_parameters() {
  if (qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::constant_(in_proj_bias, 0.0);
    init::constant_(out_proj->bias, 0.0);
  }
  if (bias_k.defined()) {
    init::xavier_normal_(bias_k);
    init::xavier_normal_(bias_v);
  }
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(
    const Tensor &query, const Tensor &key, const Tensor &value,
    const Tensor &key_padding_mask, bool need_weights, const Tensor &attn_mask,
    bool average_attn_weights, bool is_causal) {
  const int64_t embed = options.embed_dim(), heads = options.num_heads();
  const bool batched = query.dim() == 3;
  if (!batched && query.dim() != 2)
    detail::failInModule(
        "MultiheadAttention: query should be unbatched 2-D or batched "
        "3-D, got " +
        shapeText(query));
  if (key.dim() != query.dim() || value.dim() != query.dim())
    detail::failInModule(
        "MultiheadAttention: query, key and value must have the same "
        "rank (query " +
        shapeText(query) + ", key " + shapeText(key) + ", value " +
        shapeText(value) + ")");
  // [seq, batch, embed] from here on.
  Tensor q = query, k = key, v = value, padding = key_padding_mask;
  if (batched && options.batch_first()) {
    q = F::transpose(q, 0, 1);
    k = same(key, query) ? q : F::transpose(k, 0, 1);
    v = same(value, key) ? k : F::transpose(v, 0, 1);
  } else if (!batched) {
    q = F::unsqueeze(q, 1);
    k = same(key, query) ? q : F::unsqueeze(k, 1);
    v = same(value, key) ? k : F::unsqueeze(v, 1);
    if (padding.defined())
      padding = F::unsqueeze(padding, 0);
  }
  const int64_t L = q.shape()[0], N = q.shape()[1], S = k.shape()[0];
  if (q.shape()[2] != embed)
    detail::failInModule(
        "MultiheadAttention: was expecting embedding dimension of " +
        std::to_string(embed) + ", but got " + std::to_string(q.shape()[2]) +
        " (query " + shapeText(query) + ")");

  // In-projection: one linear for self-attention, else one per input.
  Tensor qp, kp, vp;
  if (qkv_same_embed_dim && same(q, k) && same(k, v)) {
    std::vector<Tensor> qkv =
        F::chunk(F::linear(q, in_proj_weight, in_proj_bias), 3, -1);
    qp = qkv[0], kp = qkv[1], vp = qkv[2];
  } else {
    std::vector<Tensor> biases(3);
    if (in_proj_bias.defined())
      biases = F::chunk(in_proj_bias, 3);
    std::vector<Tensor> weights =
        qkv_same_embed_dim
            ? F::chunk(in_proj_weight, 3)
            : std::vector<Tensor>{q_proj_weight, k_proj_weight, v_proj_weight};
    qp = F::linear(q, weights[0], biases[0]);
    kp = F::linear(k, weights[1], biases[1]);
    vp = F::linear(v, weights[2], biases[2]);
  }
  // add_bias_kv: one more key/value position holding bias_k/bias_v.
  int64_t extraKeys = 0;
  if (bias_k.defined()) {
    kp = F::cat({kp, F::expand(bias_k, {1, N, embed})}, 0);
    vp = F::cat({vp, F::expand(bias_v, {1, N, embed})}, 0);
    ++extraKeys;
  }
  // [seq, batch, embed] → [batch, heads, seq, head_dim].
  auto splitHeads = [&](const Tensor &t, int64_t seq) {
    return F::permute(F::reshape(t, {seq, N, heads, head_dim}), {1, 2, 0, 3});
  };
  Tensor qh = splitHeads(qp, L), kh = splitHeads(kp, S + extraKeys),
         vh = splitHeads(vp, S + extraKeys);
  // add_zero_attn: one more position whose key and value are zero.
  if (options.add_zero_attn()) {
    Tensor zeros = F::zeros({N, heads, 1, head_dim}, kh.dtype());
    kh = F::cat({kh, zeros}, 2);
    vh = F::cat({vh, zeros}, 2);
    ++extraKeys;
  }

  // One additive mask broadcasting to [batch, heads, L, S].
  Tensor mask;
  if (attn_mask.defined()) {
    if (attn_mask.dim() == 2) {
      if (attn_mask.shape() != Shape{L, S})
        detail::failInModule(
            "MultiheadAttention: the shape of the 2D attn_mask is " +
            shapeText(attn_mask) + ", but should be " + shape_str({L, S}));
      mask = attn_mask;
    } else if (attn_mask.dim() == 3) {
      if (attn_mask.shape() != Shape{N * heads, L, S})
        detail::failInModule(
            "MultiheadAttention: the shape of the 3D attn_mask is " +
            shapeText(attn_mask) + ", but should be " +
            shape_str({N * heads, L, S}));
      mask = F::reshape(attn_mask, {N, heads, L, S});
    } else {
      detail::failInModule("MultiheadAttention: attn_mask's dimension " +
                           std::to_string(attn_mask.dim()) +
                           " is not supported");
    }
    mask = F::canonical_mask(mask, q.dtype());
  } else if (is_causal) {
    detail::failInModule(
        "MultiheadAttention: is_causal needs attn_mask (it is a hint "
        "that attn_mask is the causal mask, as in PyTorch)");
  }
  // The op's causal triangle is the mask only over the original keys.
  const bool causal =
      is_causal && !padding.defined() && !need_weights && extraKeys == 0;
  if (padding.defined()) {
    if (padding.shape() != Shape{N, S})
      detail::failInModule(
          "MultiheadAttention: expecting key_padding_mask shape of " +
          shape_str({N, S}) + ", but got " + shapeText(padding));
    Tensor bias =
        F::reshape(F::canonical_mask(padding, q.dtype()), {N, 1, 1, S});
    mask = mask.defined() ? mask + bias : bias;
  }
  // The added positions are attended by every query: PyTorch pads both
  // masks with 0 (false) for them.
  if (mask.defined() && extraKeys > 0) {
    Shape pad = mask.shape();
    pad.back() = extraKeys;
    mask = F::cat({mask, F::zeros(pad, mask.dtype())}, -1);
  }

  Tensor out, weights;
  const bool dropout = is_training() && options.dropout() > 0.0;
  if (need_weights) {
    Tensor scores =
        F::matmul(F::div(qh, std::sqrt(static_cast<double>(head_dim))),
                  F::transpose(kh, -2, -1));
    if (mask.defined())
      scores = mask + scores;
    weights = F::softmax(scores, -1);
    // PyTorch returns the weights after dropout.
    if (dropout)
      weights = F::dropout(weights, options.dropout(), true);
    out = F::matmul(weights, vh);
  } else {
    F::ScaledDotProductAttentionFuncOptions sdpa;
    sdpa.dropout_p(dropout ? options.dropout() : 0.0);
    if (causal)
      sdpa.is_causal(true);
    else if (mask.defined())
      sdpa.attn_mask(mask);
    out = F::scaled_dot_product_attention(qh, kh, vh, sdpa);
  }
  // [batch, heads, L, head_dim] → [L, batch, embed].
  out = F::reshape(F::permute(out, {2, 0, 1, 3}), {L, N, embed});
  out = out_proj(out);
  if (batched && options.batch_first())
    out = F::transpose(out, 0, 1);
  if (!need_weights)
    weights = Tensor();
  else if (average_attn_weights)
    weights = F::div(F::sum(weights, {1}), static_cast<double>(heads));
  if (!batched) {
    out = F::squeeze(out, 1);
    if (weights.defined())
      weights = F::squeeze(weights, 0);
  }
  return {out, weights};
}

//===----------------------------------------------------------------------===//
// TransformerEncoderLayer
//===----------------------------------------------------------------------===//

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(
    const TransformerEncoderLayerOptions &options_)
    : Cloneable("TransformerEncoderLayer"), options(options_) {
  if (options.activation() != "relu" && options.activation() != "gelu")
    throw Error(
        "TransformerEncoderLayer: activation should be relu/gelu, not " +
        options.activation());
  const int64_t d = options.d_model();
  self_attn = register_module(
      "self_attn",
      MultiheadAttention(MultiheadAttentionOptions(d, options.nhead())
                             .dropout(options.dropout())
                             .batch_first(options.batch_first())));
  linear1 = register_module("linear1", Linear(d, options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), d));
  norm1 = register_module(
      "norm1", LayerNorm(LayerNormOptions({d}).eps(options.layer_norm_eps())));
  norm2 = register_module(
      "norm2", LayerNorm(LayerNormOptions({d}).eps(options.layer_norm_eps())));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
}

Tensor TransformerEncoderLayerImpl::self_attention_block(
    const Tensor &x, const Tensor &mask, const Tensor &key_padding_mask,
    bool is_causal) {
  Tensor out = std::get<0>(self_attn(x, x, x, key_padding_mask,
                                     /*need_weights=*/false, mask,
                                     /*average_attn_weights=*/true, is_causal));
  return dropout1(out);
}

Tensor TransformerEncoderLayerImpl::feed_forward_block(const Tensor &x) {
  Tensor h = linear1(x);
  h = options.activation() == "gelu" ? F::gelu(h) : F::relu(h);
  return dropout2(linear2(dropout(h)));
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor &src,
                                            const Tensor &src_mask,
                                            const Tensor &src_key_padding_mask,
                                            bool is_causal) {
  Tensor x = src;
  if (options.norm_first()) {
    x = x + self_attention_block(norm1(x), src_mask, src_key_padding_mask,
                                 is_causal);
    return x + feed_forward_block(norm2(x));
  }
  x = norm1(x +
            self_attention_block(x, src_mask, src_key_padding_mask, is_causal));
  return norm2(x + feed_forward_block(x));
}

//===----------------------------------------------------------------------===//
// TransformerEncoder
//===----------------------------------------------------------------------===//

TransformerEncoderImpl::TransformerEncoderImpl(
    const TransformerEncoderOptions &options_)
    : Cloneable("TransformerEncoder"), options(options_) {
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i)
    layers->push_back(options.encoder_layer().clone());
  if (!options.norm().is_empty())
    norm = register_module("norm", options.norm());
}

Tensor TransformerEncoderImpl::forward(const Tensor &src, const Tensor &mask,
                                       const Tensor &src_key_padding_mask,
                                       bool is_causal) {
  Tensor x = src;
  for (size_t i = 0; i < layers->size(); ++i)
    x = TransformerEncoderLayer(layers->ptr<TransformerEncoderLayerImpl>(i))(
        x, mask, src_key_padding_mask, is_causal);
  return norm.is_empty() ? x : norm(x);
}

} // namespace nn
