//===- VisionTransformer.h - torchvision's VisionTransformer ----*- C++ -*-===//
//
// torchvision.models.VisionTransformer (0.14) written with nn, under its
// module names: the image cut into patches by a strided convolution, a
// class token prepended, learned position embeddings, pre-norm encoder
// blocks (LayerNorm, multi-head self-attention, LayerNorm, MLPBlock) and a
// linear head on the class token.
//
//   auto vit = nn::zoo::vit_b_16();   // ViT-B/16: 224x224, 12 layers of 768
//   nn::zoo::VisionTransformer small(nn::zoo::VisionTransformerOptions(
//       /*image_size=*/64, /*patch_size=*/16, /*num_layers=*/2,
//       /*num_heads=*/4, /*hidden_dim=*/64, /*mlp_dim=*/128));
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_ZOO_VISIONTRANSFORMER_H
#define NN_EXAMPLES_ZOO_VISIONTRANSFORMER_H

#include "nn/nn.h"

namespace nn::zoo {

/// torchvision.models.VisionTransformer's arguments (without the
/// representation layer and convolutional stem it can also have).
struct VisionTransformerOptions {
  VisionTransformerOptions(int64_t image_size, int64_t patch_size,
                           int64_t num_layers, int64_t num_heads,
                           int64_t hidden_dim, int64_t mlp_dim)
      : image_size_(image_size), patch_size_(patch_size),
        num_layers_(num_layers), num_heads_(num_heads), hidden_dim_(hidden_dim),
        mlp_dim_(mlp_dim) {}
  NN_ARG(int64_t, image_size);
  NN_ARG(int64_t, patch_size);
  NN_ARG(int64_t, num_layers);
  NN_ARG(int64_t, num_heads);
  NN_ARG(int64_t, hidden_dim);
  NN_ARG(int64_t, mlp_dim);
  NN_ARG(double, dropout) = 0.0;
  NN_ARG(double, attention_dropout) = 0.0;
  NN_ARG(int64_t, num_classes) = 1000;
};

/// torchvision's MLPBlock: a Sequential of Linear, GELU, Dropout, Linear,
/// Dropout.
class MLPBlockImpl : public Cloneable<MLPBlockImpl, SequentialImpl> {
public:
  MLPBlockImpl(int64_t in_dim, int64_t mlp_dim, double dropout);
};
NN_MODULE(MLPBlock);

/// One pre-norm transformer encoder layer.
class EncoderBlockImpl : public Cloneable<EncoderBlockImpl> {
public:
  EncoderBlockImpl(int64_t num_heads, int64_t hidden_dim, int64_t mlp_dim,
                   double dropout, double attention_dropout);
  Tensor forward(const Tensor &input);

  LayerNorm ln_1{nullptr}, ln_2{nullptr};
  MultiheadAttention self_attention{nullptr};
  Dropout dropout{nullptr};
  MLPBlock mlp{nullptr};
};
NN_MODULE(EncoderBlock);

/// Position embeddings, the encoder layers ("encoder_layer_<i>") and the
/// final LayerNorm.
class EncoderImpl : public Cloneable<EncoderImpl> {
public:
  EncoderImpl(int64_t seq_length, const VisionTransformerOptions &options);
  Tensor forward(const Tensor &input);

  Tensor pos_embedding; // [1, seq_length, hidden_dim]
  Dropout dropout{nullptr};
  Sequential layers{nullptr};
  LayerNorm ln{nullptr};
};
NN_MODULE(Encoder);

class VisionTransformerImpl : public Cloneable<VisionTransformerImpl> {
public:
  explicit VisionTransformerImpl(const VisionTransformerOptions &options);
  Tensor forward(const Tensor &x);

  VisionTransformerOptions options;
  Conv2d conv_proj{nullptr};
  Tensor class_token; // [1, 1, hidden_dim]
  Encoder encoder{nullptr};
  Sequential heads{nullptr};
};
NN_MODULE(VisionTransformer);

/// torchvision.models.vit_b_16(): 224x224 images in 16x16 patches, 12
/// layers of 768 with 12 heads and MLPs of 3072.
inline VisionTransformer vit_b_16(int64_t num_classes = 1000) {
  return VisionTransformer(VisionTransformerOptions(224, 16, 12, 12, 768, 3072)
                               .num_classes(num_classes));
}

} // namespace nn::zoo

#endif // NN_EXAMPLES_ZOO_VISIONTRANSFORMER_H
