//===- TiedModel.h - Weight tying by assignment -----------------*- C++ -*-===//
//
// decoder->weight = encoder->weight, as `self.decoder.weight =
// self.encoder.weight` in Python: one parameter in named_parameters(), two
// keys in state_dict(), one symbol when traced. TiedEmbeddingLM ties a
// language model's output head to its token embedding the same way. The
// PyTorch twins are in tests/reference/generate_module_goldens.py.
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_MODELS_TIEDMODEL_H
#define NN_EXAMPLES_MODELS_TIEDMODEL_H

#include "nn/nn.h"

#include <cmath>

namespace nn::models {

class TiedModelImpl : public Cloneable<TiedModelImpl> {
public:
  TiedModelImpl() : Cloneable("TiedModel") {
    encoder = register_module("encoder", Linear(16, 16));
    decoder = register_module("decoder", Linear(16, 16));
    decoder->weight = encoder->weight;
  }

  Tensor forward(const Tensor &x) { return decoder(F::relu(encoder(x))); }

  Linear encoder{nullptr}, decoder{nullptr};
};
NN_MODULE(TiedModel);

/// Tokens [batch, 7] (int64) → logits [batch, 7, 32]: embedding, one causal
/// TransformerEncoderLayer, LayerNorm, and a head whose weight is the
/// embedding's.
class TiedEmbeddingLMImpl : public Cloneable<TiedEmbeddingLMImpl> {
public:
  TiedEmbeddingLMImpl() : Cloneable("TiedEmbeddingLM") {
    embed = register_module("embed", Embedding(32, 16));
    encoder = register_module(
        "encoder", TransformerEncoderLayer(TransformerEncoderLayerOptions(16, 4)
                                               .dim_feedforward(32)
                                               .batch_first(true)));
    norm = register_module("norm", LayerNorm(LayerNormOptions({16})));
    head = register_module("head", Linear(LinearOptions(16, 32).bias(false)));
    head->weight = embed->weight;
    // -inf above the diagonal: position i sees positions ≤ i.
    causal_mask = Tensor::zeros({7, 7});
    for (int64_t i = 0; i < 7; ++i)
      for (int64_t j = i + 1; j < 7; ++j)
        causal_mask.data_ptr<float>()[i * 7 + j] = -INFINITY;
    register_buffer("causal_mask", &causal_mask, /*persistent=*/false);
  }

  Tensor forward(const Tensor &tokens) {
    Tensor h =
        encoder(embed(tokens), causal_mask, Tensor(), /*is_causal=*/true);
    return head(norm(h));
  }

  Embedding embed{nullptr};
  TransformerEncoderLayer encoder{nullptr};
  LayerNorm norm{nullptr};
  Linear head{nullptr};
  Tensor causal_mask;
};
NN_MODULE(TiedEmbeddingLM);

} // namespace nn::models

#endif // NN_EXAMPLES_MODELS_TIEDMODEL_H
