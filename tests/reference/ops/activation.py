"""PyTorch goldens for nn's activation ops.

cases() yields (name, fn, inputs): generate_op_goldens.py saves inputs as
input.0, input.1, ... and fn(*inputs) as output.0, ... into
goldens/ops/activation/<name>.safetensors. The C++ twin of each case is in
tests/E2E/OpsActivationTest.cpp under the same name.
"""
import torch
import torch.nn.functional as F


def with_specials(t):
    """t with NaN, ±inf and ±0 in its first elements (where it has room)."""
    flat = t.reshape(-1)
    specials = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0])
    n = min(flat.numel(), specials.numel())
    flat[:n] = specials[:n]
    return t


def cases():
    torch.manual_seed(0)
    yield "relu_1", F.relu, (torch.randn(1),)
    yield "relu_3x17", F.relu, (with_specials(torch.randn(3, 17)),)
