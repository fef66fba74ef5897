//===- BERT.cpp - Hugging Face's BERT encoder -----------------------------===//

#include "zoo/BERT.h"
#include "zoo/Common.h"

namespace nn::zoo {

Tensor GELUActivationImpl::forward(const Tensor &x) { return F::gelu(x); }

static LayerNorm layerNorm(const BertConfig &config) {
  return LayerNorm(
      LayerNormOptions({config.hidden_size()}).eps(config.layer_norm_eps()));
}

BertEmbeddingsImpl::BertEmbeddingsImpl(const BertConfig &config)
    : Cloneable("BertEmbeddings") {
  word_embeddings = register_module(
      "word_embeddings",
      Embedding(EmbeddingOptions(config.vocab_size(), config.hidden_size())
                    .padding_idx(0)));
  position_embeddings = register_module(
      "position_embeddings",
      Embedding(config.max_position_embeddings(), config.hidden_size()));
  token_type_embeddings = register_module(
      "token_type_embeddings",
      Embedding(config.type_vocab_size(), config.hidden_size()));
  LayerNorm = register_module("LayerNorm", layerNorm(config));
  dropout = register_module("dropout", Dropout(config.dropout()));
}

Tensor BertEmbeddingsImpl::forward(const Tensor &input_ids) {
  int64_t t = input_ids.size(1);
  // arange(T)[None] and zeros: constants of the trace.
  Tensor position_ids = positionIds(
      "BertEmbeddings", t, position_embeddings->options.num_embeddings());
  Tensor token_type_ids = Tensor::zeros({1, t}, DType::i64);
  Tensor x = word_embeddings(input_ids) +
             token_type_embeddings(token_type_ids) +
             position_embeddings(position_ids);
  return dropout(LayerNorm(x));
}

BertSelfAttentionImpl::BertSelfAttentionImpl(const BertConfig &config)
    : Cloneable("BertSelfAttention"), num_heads_(config.num_attention_heads()) {
  if (config.hidden_size() % num_heads_ != 0)
    throw Error("BertSelfAttention: hidden_size " +
                std::to_string(config.hidden_size()) +
                " is not a multiple of num_attention_heads " +
                std::to_string(num_heads_));
  int64_t hidden = config.hidden_size();
  query = register_module("query", Linear(hidden, hidden));
  key = register_module("key", Linear(hidden, hidden));
  value = register_module("value", Linear(hidden, hidden));
  dropout = register_module("dropout", Dropout(config.dropout()));
}

Tensor BertSelfAttentionImpl::forward(const Tensor &x) {
  Tensor context = F::scaled_dot_product_attention(
      splitHeads(query(x), num_heads_), splitHeads(key(x), num_heads_),
      splitHeads(value(x), num_heads_),
      F::ScaledDotProductAttentionFuncOptions().dropout_p(
          is_training() ? dropout->options.p() : 0.0));
  return mergeHeads(context);
}

BertResidualOutputImpl::BertResidualOutputImpl(const char *name,
                                               int64_t in_features,
                                               const BertConfig &config)
    : Cloneable(name) {
  dense = register_module("dense", Linear(in_features, config.hidden_size()));
  LayerNorm = register_module("LayerNorm", layerNorm(config));
  dropout = register_module("dropout", Dropout(config.dropout()));
}

Tensor BertResidualOutputImpl::forward(const Tensor &hidden_states,
                                       const Tensor &input_tensor) {
  return LayerNorm(dropout(dense(hidden_states)) + input_tensor);
}

BertAttentionImpl::BertAttentionImpl(const BertConfig &config)
    : Cloneable("BertAttention") {
  self = register_module("self", BertSelfAttention(config));
  output = register_module(
      "output",
      BertResidualOutput("BertSelfOutput", config.hidden_size(), config));
}

Tensor BertAttentionImpl::forward(const Tensor &x) {
  return output(self(x), x);
}

BertIntermediateImpl::BertIntermediateImpl(const BertConfig &config)
    : Cloneable("BertIntermediate") {
  dense = register_module(
      "dense", Linear(config.hidden_size(), config.intermediate_size()));
  intermediate_act_fn =
      register_module("intermediate_act_fn", GELUActivation());
}

Tensor BertIntermediateImpl::forward(const Tensor &x) {
  return intermediate_act_fn(dense(x));
}

BertLayerImpl::BertLayerImpl(const BertConfig &config)
    : Cloneable("BertLayer") {
  attention = register_module("attention", BertAttention(config));
  intermediate = register_module("intermediate", BertIntermediate(config));
  output = register_module(
      "output",
      BertResidualOutput("BertOutput", config.intermediate_size(), config));
}

Tensor BertLayerImpl::forward(const Tensor &x) {
  Tensor attention_output = attention(x);
  return output(intermediate(attention_output), attention_output);
}

BertEncoderImpl::BertEncoderImpl(const BertConfig &config)
    : Cloneable("BertEncoder") {
  ModuleList layers;
  for (int64_t i = 0; i < config.num_hidden_layers(); ++i)
    layers->push_back(BertLayer(config));
  layer = register_module("layer", layers);
}

Tensor BertEncoderImpl::forward(const Tensor &x) {
  Tensor y = x;
  for (const AnyModule &block : *layer)
    y = block(y);
  return y;
}

BertPoolerImpl::BertPoolerImpl(const BertConfig &config)
    : Cloneable("BertPooler") {
  dense = register_module("dense",
                          Linear(config.hidden_size(), config.hidden_size()));
  activation = register_module("activation", Tanh());
}

Tensor BertPoolerImpl::forward(const Tensor &hidden_states) {
  return activation(dense(firstToken(hidden_states)));
}

BertModelImpl::BertModelImpl(const BertConfig &config)
    : Cloneable("BertModel") {
  embeddings = register_module("embeddings", BertEmbeddings(config));
  encoder = register_module("encoder", BertEncoder(config));
  pooler = register_module("pooler", BertPooler(config));
}

std::tuple<Tensor, Tensor> BertModelImpl::forward(const Tensor &input_ids) {
  Tensor hidden = encoder(embeddings(input_ids));
  return {hidden, pooler(hidden)};
}

} // namespace nn::zoo
