"""PyTorch goldens for nn's attention op (nn.scaled_dot_product_attention).

cases() yields (name, fn, inputs): generate_op_goldens.py saves inputs as
input.0, input.1, ... and fn(*inputs) as output.0, ... into
goldens/ops/attention/<name>.safetensors. The C++ twin of each case is in
tests/E2E/OpsAttentionTest.cpp under the same name.

torch 1.13 has no public F.scaled_dot_product_attention (2.0 added it), so
the reference is the math definition PyTorch 2.x documents for it, in
float32: softmax(q·kᵀ·scale + bias)·v, a bool mask true where attending.
"""
import math

import torch


def sdpa(q, k, v, attn_mask=None, is_causal=False, scale=None):
    """PyTorch 2.x's documented reference implementation."""
    L, S = q.size(-2), k.size(-2)
    scale = 1 / math.sqrt(q.size(-1)) if scale is None else scale
    attn = q @ k.transpose(-2, -1) * scale
    if is_causal:
        keep = torch.ones(L, S, dtype=torch.bool).tril(diagonal=0)
        attn = attn.masked_fill(keep.logical_not(), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn = attn.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            attn = attn + attn_mask
    return torch.softmax(attn, dim=-1) @ v


def bool_mask(*shape):
    """A random mask with at least one true per row (no row attends to
    nothing, which would give NaN)."""
    m = torch.rand(shape) > 0.4
    m[..., 0] = True
    return m


def cases():
    torch.manual_seed(0)
    r = torch.randn
    # (batch, L, S, E, Ev): odd sizes, L ≠ S, E = 1, 3, 7, 17.
    for batch, L, S, E, Ev in (((), 5, 7, 3, 2), ((2,), 4, 4, 7, 7),
                               ((2, 3), 5, 7, 1, 3), ((3,), 1, 9, 17, 4),
                               ((2, 2), 6, 3, 17, 5)):
        name = f"sdpa_{'x'.join(map(str, batch)) or 'nobatch'}_L{L}_S{S}_E{E}_Ev{Ev}"
        yield name, sdpa, (r(*batch, L, E), r(*batch, S, E), r(*batch, S, Ev))
    # Batch dims broadcast against each other: [2, 1] · [3] · [1] → [2, 3].
    yield "sdpa_broadcast_batch", sdpa, (r(2, 1, 5, 4), r(3, 7, 4), r(1, 7, 6))
    yield "sdpa_bool_mask", lambda q, k, v, m: sdpa(q, k, v, attn_mask=m), \
        (r(2, 5, 3), r(2, 7, 3), r(2, 7, 4), bool_mask(5, 7))
    yield "sdpa_bool_mask_batched", lambda q, k, v, m: sdpa(q, k, v, attn_mask=m), \
        (r(2, 3, 4, 8), r(2, 3, 6, 8), r(2, 3, 6, 8), bool_mask(2, 1, 4, 6))
    yield "sdpa_float_mask", lambda q, k, v, m: sdpa(q, k, v, attn_mask=m), \
        (r(2, 4, 5, 7), r(2, 4, 6, 7), r(2, 4, 6, 3), r(2, 1, 1, 6) * 3)
    yield "sdpa_float_mask_with_inf", lambda q, k, v, m: sdpa(q, k, v, attn_mask=m), \
        (r(5, 3), r(7, 3), r(7, 2),
         torch.zeros(5, 7).masked_fill(bool_mask(5, 7).logical_not(), float("-inf")))
    yield "sdpa_causal", lambda q, k, v: sdpa(q, k, v, is_causal=True), \
        (r(2, 6, 4), r(2, 6, 4), r(2, 6, 5))
    yield "sdpa_causal_L3_S7", lambda q, k, v: sdpa(q, k, v, is_causal=True), \
        (r(2, 3, 5), r(2, 7, 5), r(2, 7, 2))
    yield "sdpa_causal_L7_S3", lambda q, k, v: sdpa(q, k, v, is_causal=True), \
        (r(7, 5), r(3, 5), r(3, 2))
    yield "sdpa_scale", lambda q, k, v: sdpa(q, k, v, scale=0.3), \
        (r(2, 5, 7), r(2, 4, 7), r(2, 4, 3))
    yield "sdpa_causal_scale", lambda q, k, v: sdpa(q, k, v, is_causal=True, scale=1.7), \
        (r(4, 4, 3), r(4, 4, 3), r(4, 4, 3))
    # Large logits: the max subtraction keeps exp finite.
    yield "sdpa_large_logits", sdpa, (r(2, 5, 4) * 30, r(2, 6, 4) * 30, r(2, 6, 3))
