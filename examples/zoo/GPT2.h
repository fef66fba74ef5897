//===- GPT2.h - Hugging Face's GPT-2 ----------------------------*- C++ -*-===//
//
// GPT2LMHeadModel as Hugging Face transformers writes it, with nn: the same
// module names (transformer.wte, transformer.h.<i>.attn.c_attn, ...), the
// same Conv1D layers (weights stored [in, out]), and the language-model
// head tied to the token embedding, so a GPT-2 state_dict loads strictly.
// The causal mask and the position ids are made in forward (transformers
// keeps them as non-persistent buffers: in no state_dict either).
//
//   nn::zoo::GPT2LMHeadModel gpt2;                      // GPT-2 small
//   auto logits = gpt2(input_ids);                      // [B, T, vocab]
//
//===----------------------------------------------------------------------===//
#ifndef NN_EXAMPLES_ZOO_GPT2_H
#define NN_EXAMPLES_ZOO_GPT2_H

#include "nn/nn.h"

namespace nn::zoo {

/// transformers.GPT2Config's sizes (GPT-2 small by default).
struct GPT2Config {
  NN_ARG(int64_t, vocab_size) = 50257;
  NN_ARG(int64_t, n_positions) = 1024;
  NN_ARG(int64_t, n_embd) = 768;
  NN_ARG(int64_t, n_layer) = 12;
  NN_ARG(int64_t, n_head) = 12;
  NN_ARG(double, layer_norm_epsilon) = 1e-5;
  /// resid_pdrop, embd_pdrop and attn_pdrop.
  NN_ARG(double, dropout) = 0.1;
};

/// transformers' Conv1D: x · weight + bias with weight [nx, nf] (in, out).
class Conv1DImpl : public Cloneable<Conv1DImpl> {
public:
  Conv1DImpl(int64_t nf, int64_t nx);
  Tensor forward(const Tensor &x);
  std::string extra_repr() const override;

  int64_t nf, nx;
  Tensor weight, bias;
};
NN_MODULE(Conv1D);

/// GPT-2's gelu_new, the tanh approximation of GELU.
class NewGELUActivationImpl : public Cloneable<NewGELUActivationImpl> {
public:
  NewGELUActivationImpl() : Cloneable("NewGELUActivation") {}
  Tensor forward(const Tensor &x);
};
NN_MODULE(NewGELUActivation);

class GPT2AttentionImpl : public Cloneable<GPT2AttentionImpl> {
public:
  explicit GPT2AttentionImpl(const GPT2Config &config);
  Tensor forward(const Tensor &hidden_states);

  Conv1D c_attn{nullptr}, c_proj{nullptr};
  Dropout attn_dropout{nullptr}, resid_dropout{nullptr};

private:
  int64_t num_heads_;
};
NN_MODULE(GPT2Attention);

class GPT2MLPImpl : public Cloneable<GPT2MLPImpl> {
public:
  explicit GPT2MLPImpl(const GPT2Config &config);
  Tensor forward(const Tensor &x);

  Conv1D c_fc{nullptr}, c_proj{nullptr};
  NewGELUActivation act{nullptr};
  Dropout dropout{nullptr};
};
NN_MODULE(GPT2MLP);

/// Pre-norm: x + attn(ln_1(x)), then + mlp(ln_2(·)).
class GPT2BlockImpl : public Cloneable<GPT2BlockImpl> {
public:
  explicit GPT2BlockImpl(const GPT2Config &config);
  Tensor forward(const Tensor &x);

  LayerNorm ln_1{nullptr}, ln_2{nullptr};
  GPT2Attention attn{nullptr};
  GPT2MLP mlp{nullptr};
};
NN_MODULE(GPT2Block);

/// Token and position embeddings, the blocks `h`, the final LayerNorm.
class GPT2ModelImpl : public Cloneable<GPT2ModelImpl> {
public:
  explicit GPT2ModelImpl(const GPT2Config &config = {});
  /// input_ids [B, T] (int64) → hidden states [B, T, n_embd].
  Tensor forward(const Tensor &input_ids);

  Embedding wte{nullptr}, wpe{nullptr};
  Dropout drop{nullptr};
  ModuleList h{nullptr};
  LayerNorm ln_f{nullptr};
};
NN_MODULE(GPT2Model);

class GPT2LMHeadModelImpl : public Cloneable<GPT2LMHeadModelImpl> {
public:
  explicit GPT2LMHeadModelImpl(const GPT2Config &config = {});
  /// input_ids [B, T] (int64) → logits [B, T, vocab_size].
  Tensor forward(const Tensor &input_ids);

  GPT2Model transformer{nullptr};
  Linear lm_head{nullptr}; // its weight is transformer->wte->weight
};
NN_MODULE(GPT2LMHeadModel);

} // namespace nn::zoo

#endif // NN_EXAMPLES_ZOO_GPT2_H
