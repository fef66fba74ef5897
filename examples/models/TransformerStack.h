//===- TransformerStack.h - Transformer blocks in a ModuleList --*- C++ -*-===//
//
// Two post-norm Transformer blocks (multi-head self-attention and a GELU
// feed-forward, each with a residual and LayerNorm) in a ModuleList, then a
// Linear head; inputs are [batch, seq, 16]. The PyTorch twin is in
// tests/reference/generate_module_goldens.py.
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_MODELS_TRANSFORMERSTACK_H
#define NN_EXAMPLES_MODELS_TRANSFORMERSTACK_H

#include "nn/nn.h"

namespace nn::models {

class TransformerBlockImpl : public Cloneable<TransformerBlockImpl> {
public:
  TransformerBlockImpl(int64_t d_model, int64_t nhead, int64_t dim_feedforward)
      : Cloneable("TransformerBlock") {
    attn = register_module(
        "attn",
        MultiheadAttention(
            MultiheadAttentionOptions(d_model, nhead).batch_first(true)));
    norm1 = register_module("norm1", LayerNorm(LayerNormOptions({d_model})));
    ff = register_module("ff",
                         Sequential(Linear(d_model, dim_feedforward), GELU(),
                                    Linear(dim_feedforward, d_model)));
    norm2 = register_module("norm2", LayerNorm(LayerNormOptions({d_model})));
  }

  Tensor forward(Tensor x) {
    x = norm1(x + std::get<0>(attn(x, x, x, Tensor(), /*need_weights=*/false)));
    return norm2(x + ff(x));
  }

  MultiheadAttention attn{nullptr};
  LayerNorm norm1{nullptr};
  Sequential ff{nullptr};
  LayerNorm norm2{nullptr};
};
NN_MODULE(TransformerBlock);

class TransformerStackImpl : public Cloneable<TransformerStackImpl> {
public:
  TransformerStackImpl() : Cloneable("TransformerStack") {
    blocks = register_module("blocks", ModuleList());
    for (int i = 0; i < 2; ++i)
      blocks->push_back(TransformerBlock(16, 4, 32));
    head = register_module("head", Linear(16, 4));
  }

  Tensor forward(Tensor x) {
    for (size_t i = 0; i < blocks->size(); ++i)
      x = blocks[i](x);
    return head(x);
  }

  ModuleList blocks{nullptr};
  Linear head{nullptr};
};
NN_MODULE(TransformerStack);

} // namespace nn::models

#endif // NN_EXAMPLES_MODELS_TRANSFORMERSTACK_H
