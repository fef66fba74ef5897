//===- GPT2.cpp - Hugging Face's GPT-2 ------------------------------------===//

#include "zoo/GPT2.h"
#include "zoo/Common.h"

namespace nn::zoo {

Conv1DImpl::Conv1DImpl(int64_t nf_, int64_t nx_)
    : Cloneable("Conv1D"), nf(nf_), nx(nx_) {
  // transformers' init: N(0, 0.02²) weight, zero bias.
  weight = Tensor::zeros({nx, nf});
  init::normal_(weight, 0.0, 0.02);
  bias = Tensor::zeros({nf});
  register_parameter("weight", &weight);
  register_parameter("bias", &bias);
}

Tensor Conv1DImpl::forward(const Tensor &x) {
  return F::matmul(x, weight) + bias;
}

std::string Conv1DImpl::extra_repr() const {
  // transformers prints Conv1D(nf=2304, nx=768).
  return "nf=" + std::to_string(nf) + ", nx=" + std::to_string(nx);
}

Tensor NewGELUActivationImpl::forward(const Tensor &x) {
  return F::gelu(x, F::GELUFuncOptions().approximate("tanh"));
}

GPT2AttentionImpl::GPT2AttentionImpl(const GPT2Config &config)
    : Cloneable("GPT2Attention"), num_heads_(config.n_head()) {
  if (config.n_embd() % config.n_head() != 0)
    throw Error("GPT2Attention: n_embd " + std::to_string(config.n_embd()) +
                " is not a multiple of n_head " +
                std::to_string(config.n_head()));
  c_attn =
      register_module("c_attn", Conv1D(3 * config.n_embd(), config.n_embd()));
  c_proj = register_module("c_proj", Conv1D(config.n_embd(), config.n_embd()));
  attn_dropout = register_module("attn_dropout", Dropout(config.dropout()));
  resid_dropout = register_module("resid_dropout", Dropout(config.dropout()));
}

Tensor GPT2AttentionImpl::forward(const Tensor &hidden_states) {
  std::vector<Tensor> qkv =
      F::split(c_attn(hidden_states), hidden_states.size(2), 2);
  Tensor out = F::scaled_dot_product_attention(
      splitHeads(qkv[0], num_heads_), splitHeads(qkv[1], num_heads_),
      splitHeads(qkv[2], num_heads_),
      F::ScaledDotProductAttentionFuncOptions().is_causal(true).dropout_p(
          is_training() ? attn_dropout->options.p() : 0.0));
  return resid_dropout(c_proj(mergeHeads(out)));
}

GPT2MLPImpl::GPT2MLPImpl(const GPT2Config &config) : Cloneable("GPT2MLP") {
  int64_t inner = 4 * config.n_embd();
  c_fc = register_module("c_fc", Conv1D(inner, config.n_embd()));
  c_proj = register_module("c_proj", Conv1D(config.n_embd(), inner));
  act = register_module("act", NewGELUActivation());
  dropout = register_module("dropout", Dropout(config.dropout()));
}

Tensor GPT2MLPImpl::forward(const Tensor &x) {
  return dropout(c_proj(act(c_fc(x))));
}

static LayerNorm layerNorm(const GPT2Config &config) {
  return LayerNorm(
      LayerNormOptions({config.n_embd()}).eps(config.layer_norm_epsilon()));
}

GPT2BlockImpl::GPT2BlockImpl(const GPT2Config &config)
    : Cloneable("GPT2Block") {
  ln_1 = register_module("ln_1", layerNorm(config));
  attn = register_module("attn", GPT2Attention(config));
  ln_2 = register_module("ln_2", layerNorm(config));
  mlp = register_module("mlp", GPT2MLP(config));
}

Tensor GPT2BlockImpl::forward(const Tensor &x) {
  Tensor y = x + attn(ln_1(x));
  return y + mlp(ln_2(y));
}

GPT2ModelImpl::GPT2ModelImpl(const GPT2Config &config)
    : Cloneable("GPT2Model") {
  wte = register_module("wte", Embedding(config.vocab_size(), config.n_embd()));
  wpe =
      register_module("wpe", Embedding(config.n_positions(), config.n_embd()));
  drop = register_module("drop", Dropout(config.dropout()));
  ModuleList blocks;
  for (int64_t i = 0; i < config.n_layer(); ++i)
    blocks->push_back(GPT2Block(config));
  h = register_module("h", blocks);
  ln_f = register_module("ln_f", layerNorm(config));
}

Tensor GPT2ModelImpl::forward(const Tensor &input_ids) {
  Tensor position_ids =
      positionIds("GPT2Model", input_ids.size(input_ids.dim() - 1),
                  wpe->options.num_embeddings());
  Tensor x = drop(wte(input_ids) + wpe(position_ids));
  for (const AnyModule &block : *h)
    x = block(x);
  return ln_f(x);
}

GPT2LMHeadModelImpl::GPT2LMHeadModelImpl(const GPT2Config &config)
    : Cloneable("GPT2LMHeadModel") {
  transformer = register_module("transformer", GPT2Model(config));
  lm_head = register_module(
      "lm_head",
      Linear(LinearOptions(config.n_embd(), config.vocab_size()).bias(false)));
  lm_head->weight = transformer->wte->weight;
}

Tensor GPT2LMHeadModelImpl::forward(const Tensor &input_ids) {
  return lm_head(transformer(input_ids));
}

} // namespace nn::zoo
