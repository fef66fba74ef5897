"""PyTorch goldens for nn's MultiheadAttention, TransformerEncoderLayer and
TransformerEncoder, in eval mode.

cases() yields (name, fn, inputs) as every op family does (see
generate_op_goldens.py); here the inputs are the layer's data inputs
followed by its state_dict values in state_dict order (random values, so
biases and LayerNorm affines are not their 0/1 defaults), and fn builds the
layer, loads them and calls it. The C++ twin of each case, in
tests/E2E/TransformerTest.cpp, builds the same layer, loads the same values
in its own state_dict order (which must be PyTorch's) and compares.

Layers run with autograd enabled: PyTorch 1.13 then never takes its fused
"fast path" (torch._transformer_encoder_layer_fwd / nested tensors), and
what is compared is the plain F.multi_head_attention_forward.
"""
import torch
from torch import nn


def layer_case(make, data, call=lambda m, *x: m(*x), seed=0):
    """(fn, inputs) for a layer `make()` called as call(layer, *data)."""
    torch.manual_seed(seed)
    model = make()
    weights = tuple(torch.randn(v.shape) * 0.5 for v in model.state_dict().values())

    def fn(*inputs):
        model = make()
        keys = list(model.state_dict().keys())
        model.load_state_dict(dict(zip(keys, inputs[len(data):])), strict=True)
        model.eval()
        with torch.enable_grad():
            out = call(model, *inputs[:len(data)])
        if isinstance(out, tuple):
            return tuple(o.detach() for o in out if o is not None)
        return out.detach()

    return fn, tuple(data) + weights


def padding_mask(n, s):
    """True at the padded (ignored) trailing positions; never a whole row."""
    m = torch.zeros(n, s, dtype=torch.bool)
    for i in range(n):
        m[i, s - i:] = True if i else False
    return m


def causal_float_mask(n):
    return torch.triu(torch.full((n, n), float("-inf")), diagonal=1)


def cases():
    torch.manual_seed(0)
    r = torch.randn

    # MultiheadAttention
    x = r(5, 3, 8)
    yield ("mha_self", *layer_case(lambda: nn.MultiheadAttention(8, 2),
                                   (x,), lambda m, x: m(x, x, x)))
    yield ("mha_cross_batch_first_per_head_weights", *layer_case(
        lambda: nn.MultiheadAttention(12, 3, batch_first=True),
        (r(2, 4, 12), r(2, 6, 12), r(2, 6, 12)),
        lambda m, q, k, v: m(q, k, v, average_attn_weights=False)))
    yield ("mha_bool_masks_no_weights", *layer_case(
        lambda: nn.MultiheadAttention(8, 4),
        (r(6, 2, 8), torch.triu(torch.ones(6, 6, dtype=torch.bool), 1),
         padding_mask(2, 6)),
        lambda m, x, am, kpm: m(x, x, x, key_padding_mask=kpm, attn_mask=am,
                                need_weights=False)))
    yield ("mha_float_3d_mask", *layer_case(
        lambda: nn.MultiheadAttention(6, 2, batch_first=True),
        (r(3, 4, 6), r(3 * 2, 4, 4)),
        lambda m, x, am: m(x, x, x, attn_mask=am)))
    yield ("mha_kdim_vdim", *layer_case(
        lambda: nn.MultiheadAttention(8, 2, kdim=5, vdim=3, batch_first=True),
        (r(2, 4, 8), r(2, 7, 5), r(2, 7, 3)),
        lambda m, q, k, v: m(q, k, v)))
    x = r(5, 8)
    yield ("mha_unbatched_nobias", *layer_case(
        lambda: nn.MultiheadAttention(8, 2, bias=False),
        (x, padding_mask(2, 5)[1]), lambda m, x, kpm: m(x, x, x, key_padding_mask=kpm)))

    # TransformerEncoderLayer
    yield ("encoder_layer_post_relu", *layer_case(
        lambda: nn.TransformerEncoderLayer(8, 2, dim_feedforward=16),
        (r(5, 2, 8),)))
    yield ("encoder_layer_pre_gelu_batch_first_padding", *layer_case(
        lambda: nn.TransformerEncoderLayer(8, 4, dim_feedforward=12, activation="gelu",
                                           norm_first=True, batch_first=True,
                                           layer_norm_eps=1e-6),
        (r(3, 5, 8), padding_mask(3, 5)),
        lambda m, x, kpm: m(x, src_key_padding_mask=kpm)))
    # The C++ twin also passes is_causal=true (the mask is the causal one).
    yield ("encoder_layer_causal", *layer_case(
        lambda: nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True),
        (r(2, 5, 8), causal_float_mask(5)),
        lambda m, x, mask: m(x, src_mask=mask)))

    # TransformerEncoder: deep copies of one layer, then a final LayerNorm.
    yield ("encoder_2_layers_norm", *layer_case(
        lambda: nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, dim_feedforward=16), 2,
            norm=nn.LayerNorm(8)),
        (r(4, 2, 8), causal_float_mask(4)),
        lambda m, x, mask: m(x, mask=mask)))

    # add_bias_kv / add_zero_attn (own seed: the cases above stay as they
    # were). The extra key positions take part in every mask as "attend".
    torch.manual_seed(1)
    x = r(5, 3, 8)
    yield ("mha_bias_kv", *layer_case(
        lambda: nn.MultiheadAttention(8, 2, add_bias_kv=True),
        (x,), lambda m, x: m(x, x, x)))
    yield ("mha_zero_attn_masks_no_weights", *layer_case(
        lambda: nn.MultiheadAttention(8, 4, add_zero_attn=True),
        (r(6, 2, 8), torch.triu(torch.ones(6, 6, dtype=torch.bool), 1),
         padding_mask(2, 6)),
        lambda m, x, am, kpm: m(x, x, x, key_padding_mask=kpm, attn_mask=am,
                                need_weights=False), seed=1))
    yield ("mha_bias_kv_zero_attn_cross_float_mask", *layer_case(
        lambda: nn.MultiheadAttention(6, 2, add_bias_kv=True,
                                      add_zero_attn=True, batch_first=True),
        (r(2, 4, 6), r(2, 7, 6), r(2, 7, 6), r(2 * 2, 4, 7), padding_mask(2, 7)),
        lambda m, q, k, v, am, kpm: m(q, k, v, attn_mask=am,
                                      key_padding_mask=kpm,
                                      average_attn_weights=False), seed=2))
