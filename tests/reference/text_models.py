"""PyTorch twins of Hugging Face's GPT-2 and BERT, as transformers 4.4x
writes them (GPT2LMHeadModel, BertModel) in eval: the same module tree,
names, parameters and arithmetic, without the library (Debian has no
python3-transformers). examples/zoo/GPT2.h and BERT.h are written against
these; generate_architecture_goldens.py prints, keys and runs them.

What is left out: past key values, head masks, cross-attention and the
other options a plain forward does not use. The causal mask and the
position ids are non-persistent buffers in transformers, so they are in no
state_dict; here they are made in forward.
"""

import math

import torch
from torch import nn


class Conv1D(nn.Module):
    """transformers.pytorch_utils.Conv1D: a linear layer whose weight is
    [in, out]."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.nx = nx
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))
        nn.init.normal_(self.weight, std=0.02)

    def __repr__(self):
        return f"Conv1D(nf={self.nf}, nx={self.nx})"

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class NewGELUActivation(nn.Module):
    """GPT-2's gelu_new: the tanh approximation, written out."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(
            math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GELUActivation(nn.Module):
    """BERT's gelu: the exact one."""

    def forward(self, x):
        return nn.functional.gelu(x)


# GPT-2

class GPT2Attention(nn.Module):
    def __init__(self, n_embd, n_head, dropout):
        super().__init__()
        self.embed_dim = n_embd
        self.num_heads = n_head
        self.head_dim = n_embd // n_head
        self.c_attn = Conv1D(3 * n_embd, n_embd)
        self.c_proj = Conv1D(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)

    def _split_heads(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.num_heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, hidden_states):
        query, key, value = self.c_attn(hidden_states).split(self.embed_dim,
                                                              dim=2)
        query, key, value = (self._split_heads(query), self._split_heads(key),
                             self._split_heads(value))
        weights = torch.matmul(query, key.transpose(-1, -2))
        weights = weights / torch.full([], value.size(-1) ** 0.5,
                                       dtype=weights.dtype)
        t = query.size(-2)
        causal = torch.tril(torch.ones(t, t, dtype=torch.bool))
        weights = torch.where(causal, weights,
                              torch.tensor(torch.finfo(weights.dtype).min,
                                           dtype=weights.dtype))
        weights = self.attn_dropout(nn.functional.softmax(weights, dim=-1))
        out = torch.matmul(weights, value).permute(0, 2, 1, 3).contiguous()
        out = out.view(out.size(0), out.size(1), self.embed_dim)
        return self.resid_dropout(self.c_proj(out))


class GPT2MLP(nn.Module):
    def __init__(self, intermediate, n_embd, dropout):
        super().__init__()
        self.c_fc = Conv1D(intermediate, n_embd)
        self.c_proj = Conv1D(n_embd, intermediate)
        self.act = NewGELUActivation()
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.act(self.c_fc(x))))


class GPT2Block(nn.Module):
    def __init__(self, n_embd, n_head, eps, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd, eps=eps)
        self.attn = GPT2Attention(n_embd, n_head, dropout)
        self.ln_2 = nn.LayerNorm(n_embd, eps=eps)
        self.mlp = GPT2MLP(4 * n_embd, n_embd, dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT2Model(nn.Module):
    def __init__(self, vocab_size, n_positions, n_embd, n_layer, n_head,
                 eps=1e-5, dropout=0.1):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(n_positions, n_embd)
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList(
            [GPT2Block(n_embd, n_head, eps, dropout) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd, eps=eps)

    def forward(self, input_ids):
        position_ids = torch.arange(input_ids.size(-1)).unsqueeze(0)
        x = self.drop(self.wte(input_ids) + self.wpe(position_ids))
        for block in self.h:
            x = block(x)
        return self.ln_f(x)


class GPT2LMHeadModel(nn.Module):
    """GPT-2 with its language-model head tied to the token embedding."""

    def __init__(self, vocab_size=50257, n_positions=1024, n_embd=768,
                 n_layer=12, n_head=12):
        super().__init__()
        self.transformer = GPT2Model(vocab_size, n_positions, n_embd, n_layer,
                                     n_head)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.lm_head.weight = self.transformer.wte.weight

    def forward(self, input_ids):
        return self.lm_head(self.transformer(input_ids))


# BERT

class BertEmbeddings(nn.Module):
    def __init__(self, vocab_size, hidden, max_positions, type_vocab_size,
                 eps, dropout):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden, padding_idx=0)
        self.position_embeddings = nn.Embedding(max_positions, hidden)
        self.token_type_embeddings = nn.Embedding(type_vocab_size, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=eps)
        self.dropout = nn.Dropout(dropout)

    def forward(self, input_ids):
        t = input_ids.size(1)
        position_ids = torch.arange(t).unsqueeze(0)
        token_type_ids = torch.zeros_like(input_ids)
        x = (self.word_embeddings(input_ids) +
             self.token_type_embeddings(token_type_ids) +
             self.position_embeddings(position_ids))
        return self.dropout(self.LayerNorm(x))


class BertSelfAttention(nn.Module):
    def __init__(self, hidden, heads, dropout):
        super().__init__()
        self.num_attention_heads = heads
        self.attention_head_size = hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.dropout = nn.Dropout(dropout)

    def _heads(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.num_attention_heads,
                      self.attention_head_size).permute(0, 2, 1, 3)

    def forward(self, x):
        q, k, v = (self._heads(self.query(x)), self._heads(self.key(x)),
                   self._heads(self.value(x)))
        scores = torch.matmul(q, k.transpose(-1, -2))
        scores = scores / math.sqrt(self.attention_head_size)
        probs = self.dropout(nn.functional.softmax(scores, dim=-1))
        context = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return context.view(context.size(0), context.size(1), -1)


class BertSelfOutput(nn.Module):
    def __init__(self, hidden, eps, dropout):
        super().__init__()
        self.dense = nn.Linear(hidden, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=eps)
        self.dropout = nn.Dropout(dropout)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(
            self.dropout(self.dense(hidden_states)) + input_tensor)


class BertAttention(nn.Module):
    def __init__(self, hidden, heads, eps, dropout):
        super().__init__()
        self.self = BertSelfAttention(hidden, heads, dropout)
        self.output = BertSelfOutput(hidden, eps, dropout)

    def forward(self, x):
        return self.output(self.self(x), x)


class BertIntermediate(nn.Module):
    def __init__(self, hidden, intermediate):
        super().__init__()
        self.dense = nn.Linear(hidden, intermediate)
        self.intermediate_act_fn = GELUActivation()

    def forward(self, x):
        return self.intermediate_act_fn(self.dense(x))


class BertOutput(nn.Module):
    def __init__(self, intermediate, hidden, eps, dropout):
        super().__init__()
        self.dense = nn.Linear(intermediate, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=eps)
        self.dropout = nn.Dropout(dropout)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(
            self.dropout(self.dense(hidden_states)) + input_tensor)


class BertLayer(nn.Module):
    def __init__(self, hidden, heads, intermediate, eps, dropout):
        super().__init__()
        self.attention = BertAttention(hidden, heads, eps, dropout)
        self.intermediate = BertIntermediate(hidden, intermediate)
        self.output = BertOutput(intermediate, hidden, eps, dropout)

    def forward(self, x):
        attention_output = self.attention(x)
        return self.output(self.intermediate(attention_output),
                           attention_output)


class BertEncoder(nn.Module):
    def __init__(self, layers, hidden, heads, intermediate, eps, dropout):
        super().__init__()
        self.layer = nn.ModuleList([
            BertLayer(hidden, heads, intermediate, eps, dropout)
            for _ in range(layers)])

    def forward(self, x):
        for layer in self.layer:
            x = layer(x)
        return x


class BertPooler(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.dense = nn.Linear(hidden, hidden)
        self.activation = nn.Tanh()

    def forward(self, hidden_states):
        return self.activation(self.dense(hidden_states[:, 0]))


class BertModel(nn.Module):
    """BERT's encoder; forward returns (last_hidden_state, pooler_output)."""

    def __init__(self, vocab_size=30522, hidden=768, layers=12, heads=12,
                 intermediate=3072, max_positions=512, type_vocab_size=2,
                 eps=1e-12, dropout=0.1):
        super().__init__()
        self.embeddings = BertEmbeddings(vocab_size, hidden, max_positions,
                                         type_vocab_size, eps, dropout)
        self.encoder = BertEncoder(layers, hidden, heads, intermediate, eps,
                                   dropout)
        self.pooler = BertPooler(hidden)

    def forward(self, input_ids):
        hidden = self.encoder(self.embeddings(input_ids))
        return hidden, self.pooler(hidden)
