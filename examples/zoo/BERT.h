//===- BERT.h - Hugging Face's BERT encoder ---------------------*- C++ -*-===//
//
// BertModel as Hugging Face transformers writes it, with nn: the same
// module names (embeddings.word_embeddings, encoder.layer.<i>.attention.
// self.query, ..., pooler.dense), so a BERT state_dict loads strictly. The
// position and token-type ids are made in forward (transformers keeps them
// as non-persistent buffers); every token has type 0 and attends to all.
//
//   nn::zoo::BertModel bert;                                 // BERT-base
//   auto [hidden, pooled] = bert(input_ids);   // [B, T, 768], [B, 768]
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_ZOO_BERT_H
#define NN_EXAMPLES_ZOO_BERT_H

#include "nn/nn.h"

#include <tuple>

namespace nn::zoo {

/// transformers.BertConfig's sizes (BERT-base by default).
struct BertConfig {
  NN_ARG(int64_t, vocab_size) = 30522;
  NN_ARG(int64_t, hidden_size) = 768;
  NN_ARG(int64_t, num_hidden_layers) = 12;
  NN_ARG(int64_t, num_attention_heads) = 12;
  NN_ARG(int64_t, intermediate_size) = 3072;
  NN_ARG(int64_t, max_position_embeddings) = 512;
  NN_ARG(int64_t, type_vocab_size) = 2;
  NN_ARG(double, layer_norm_eps) = 1e-12;
  /// hidden_dropout_prob and attention_probs_dropout_prob.
  NN_ARG(double, dropout) = 0.1;
};

/// BERT's gelu, the exact one.
class GELUActivationImpl : public Cloneable<GELUActivationImpl> {
public:
  GELUActivationImpl() : Cloneable("GELUActivation") {}
  Tensor forward(const Tensor &x);
};
NN_MODULE(GELUActivation);

class BertEmbeddingsImpl : public Cloneable<BertEmbeddingsImpl> {
public:
  explicit BertEmbeddingsImpl(const BertConfig &config);
  Tensor forward(const Tensor &input_ids);

  Embedding word_embeddings{nullptr}, position_embeddings{nullptr},
      token_type_embeddings{nullptr};
  // transformers' name; the type is spelled out beside it.
  ::nn::LayerNorm LayerNorm{nullptr};
  Dropout dropout{nullptr};
};
NN_MODULE(BertEmbeddings);

class BertSelfAttentionImpl : public Cloneable<BertSelfAttentionImpl> {
public:
  explicit BertSelfAttentionImpl(const BertConfig &config);
  Tensor forward(const Tensor &x);

  Linear query{nullptr}, key{nullptr}, value{nullptr};
  Dropout dropout{nullptr};

private:
  int64_t num_heads_;
};
NN_MODULE(BertSelfAttention);

/// dense, dropout, then LayerNorm of the sum with the block's input:
/// BertSelfOutput and BertOutput alike.
class BertResidualOutputImpl : public Cloneable<BertResidualOutputImpl> {
public:
  BertResidualOutputImpl(const char *name, int64_t in_features,
                         const BertConfig &config);
  Tensor forward(const Tensor &hidden_states, const Tensor &input_tensor);

  Linear dense{nullptr};
  // transformers' name; the type is spelled out beside it.
  ::nn::LayerNorm LayerNorm{nullptr};
  Dropout dropout{nullptr};
};
NN_MODULE(BertResidualOutput);

class BertAttentionImpl : public Cloneable<BertAttentionImpl> {
public:
  explicit BertAttentionImpl(const BertConfig &config);
  Tensor forward(const Tensor &x);

  BertSelfAttention self{nullptr};
  BertResidualOutput output{nullptr};
};
NN_MODULE(BertAttention);

class BertIntermediateImpl : public Cloneable<BertIntermediateImpl> {
public:
  explicit BertIntermediateImpl(const BertConfig &config);
  Tensor forward(const Tensor &x);

  Linear dense{nullptr};
  GELUActivation intermediate_act_fn{nullptr};
};
NN_MODULE(BertIntermediate);

class BertLayerImpl : public Cloneable<BertLayerImpl> {
public:
  explicit BertLayerImpl(const BertConfig &config);
  Tensor forward(const Tensor &x);

  BertAttention attention{nullptr};
  BertIntermediate intermediate{nullptr};
  BertResidualOutput output{nullptr};
};
NN_MODULE(BertLayer);

class BertEncoderImpl : public Cloneable<BertEncoderImpl> {
public:
  explicit BertEncoderImpl(const BertConfig &config);
  Tensor forward(const Tensor &x);

  ModuleList layer{nullptr};
};
NN_MODULE(BertEncoder);

/// tanh(dense(the first token's hidden state)).
class BertPoolerImpl : public Cloneable<BertPoolerImpl> {
public:
  explicit BertPoolerImpl(const BertConfig &config);
  Tensor forward(const Tensor &hidden_states);

  Linear dense{nullptr};
  Tanh activation{nullptr};
};
NN_MODULE(BertPooler);

class BertModelImpl : public Cloneable<BertModelImpl> {
public:
  explicit BertModelImpl(const BertConfig &config = {});
  /// input_ids [B, T] (int64) → (last_hidden_state [B, T, hidden],
  /// pooler_output [B, hidden]).
  std::tuple<Tensor, Tensor> forward(const Tensor &input_ids);

  BertEmbeddings embeddings{nullptr};
  BertEncoder encoder{nullptr};
  BertPooler pooler{nullptr};
};
NN_MODULE(BertModel);

} // namespace nn::zoo

#endif // NN_EXAMPLES_ZOO_BERT_H
