//===- VisionTransformer.cpp - torchvision's VisionTransformer ------------===//

#include "zoo/VisionTransformer.h"
#include "zoo/Common.h"

namespace nn::zoo {

MLPBlockImpl::MLPBlockImpl(int64_t in_dim, int64_t mlp_dim, double dropout)
    : Cloneable("MLPBlock") {
  push_back(Linear(in_dim, mlp_dim));
  push_back(GELU());
  push_back(Dropout(dropout));
  push_back(Linear(mlp_dim, in_dim));
  push_back(Dropout(dropout));
}

/// torchvision's norm_layer: LayerNorm with eps 1e-6.
static LayerNorm layerNorm(int64_t hidden_dim) {
  return LayerNorm(LayerNormOptions({hidden_dim}).eps(1e-6));
}

EncoderBlockImpl::EncoderBlockImpl(int64_t num_heads, int64_t hidden_dim,
                                   int64_t mlp_dim, double dropout,
                                   double attention_dropout)
    : Cloneable("EncoderBlock") {
  ln_1 = register_module("ln_1", layerNorm(hidden_dim));
  self_attention = register_module(
      "self_attention",
      MultiheadAttention(MultiheadAttentionOptions(hidden_dim, num_heads)
                             .dropout(attention_dropout)
                             .batch_first(true)));
  this->dropout = register_module("dropout", Dropout(dropout));
  ln_2 = register_module("ln_2", layerNorm(hidden_dim));
  mlp = register_module("mlp", MLPBlock(hidden_dim, mlp_dim, dropout));
}

Tensor EncoderBlockImpl::forward(const Tensor &input) {
  Tensor x = ln_1(input);
  x = std::get<0>(self_attention(x, x, x, {}, /*need_weights=*/false));
  x = dropout(x) + input;
  return x + mlp(ln_2(x));
}

EncoderImpl::EncoderImpl(int64_t seq_length,
                         const VisionTransformerOptions &options)
    : Cloneable("Encoder") {
  // torchvision draws it from N(0, 0.02²); nn's init module does the same.
  pos_embedding = Tensor::zeros({1, seq_length, options.hidden_dim()});
  init::normal_(pos_embedding, 0.0, 0.02);
  register_parameter("pos_embedding", &pos_embedding);
  dropout = register_module("dropout", Dropout(options.dropout()));
  Sequential encoder_layers;
  for (int64_t i = 0; i < options.num_layers(); ++i)
    encoder_layers->push_back("encoder_layer_" + std::to_string(i),
                              EncoderBlock(options.num_heads(),
                                           options.hidden_dim(),
                                           options.mlp_dim(), options.dropout(),
                                           options.attention_dropout()));
  layers = register_module("layers", encoder_layers);
  ln = register_module("ln", layerNorm(options.hidden_dim()));
}

Tensor EncoderImpl::forward(const Tensor &input) {
  return ln(layers(dropout(input + pos_embedding)));
}

VisionTransformerImpl::VisionTransformerImpl(
    const VisionTransformerOptions &options_)
    : Cloneable("VisionTransformer"), options(options_) {
  if (options.image_size() % options.patch_size() != 0)
    throw Error("VisionTransformer: image_size " +
                std::to_string(options.image_size()) +
                " is not a multiple of patch_size " +
                std::to_string(options.patch_size()));
  conv_proj = register_module(
      "conv_proj",
      Conv2d(Conv2dOptions(3, options.hidden_dim(), options.patch_size())
                 .stride(options.patch_size())));
  int64_t patches = options.image_size() / options.patch_size();
  class_token = Tensor::zeros({1, 1, options.hidden_dim()});
  register_parameter("class_token", &class_token);
  encoder = register_module("encoder", Encoder(patches * patches + 1, options));
  heads = register_module(
      "heads", Sequential({{"head", Linear(options.hidden_dim(),
                                           options.num_classes())}}));
}

Tensor VisionTransformerImpl::forward(const Tensor &x) {
  // [n, 3, h, w] → [n, hidden, h/p, w/p] → [n, patches, hidden].
  int64_t n = x.size(0);
  Tensor patches = conv_proj(x);
  patches =
      F::permute(F::reshape(patches, {n, options.hidden_dim(), -1}), {0, 2, 1});
  Tensor tokens =
      F::cat({F::expand(class_token, {n, -1, -1}), patches}, /*dim=*/1);
  // The class token's output.
  return heads(firstToken(encoder(tokens)));
}

} // namespace nn::zoo
