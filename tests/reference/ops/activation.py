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
    shapes = [(1,), (7,), (3, 17), (2, 3, 5)]
    pointwise = {
        "sigmoid": torch.sigmoid,
        "tanh": torch.tanh,
        "silu": F.silu,
        "gelu": F.gelu,
        "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        "leaky_relu": F.leaky_relu,
        "leaky_relu_02": lambda x: F.leaky_relu(x, 0.2),
        "hardtanh": F.hardtanh,
        "relu6": F.relu6,
        "clamp_min": lambda x: torch.clamp(x, min=-0.5),
        "clamp_max": lambda x: torch.clamp(x, max=0.25),
    }
    for name, fn in pointwise.items():
        for shape in shapes:
            x = torch.randn(shape) * 3
            yield f"{name}_{'x'.join(map(str, shape))}", fn, (x,)
        # Large magnitudes (saturation) and NaN/±inf.
        yield f"{name}_specials", fn, (with_specials(torch.randn(17) * 30),)
    for name, fn in (("softmax", F.softmax), ("log_softmax", F.log_softmax)):
        for shape, dim in (((7,), 0), ((3, 17), 1), ((3, 17), 0), ((2, 3, 5), -1),
                           ((2, 3, 5), 1)):
            x = torch.randn(shape) * 4
            yield (f"{name}_{'x'.join(map(str, shape))}_dim{dim}".replace("-", "m"),
                   lambda x, fn=fn, dim=dim: fn(x, dim=dim), (x,))
        # Large logits: the max subtraction keeps exp finite.
        yield f"{name}_large", lambda x, fn=fn: fn(x, dim=-1), (torch.randn(2, 9) * 100,)
    # Added after the cases above, so that their inputs stay as they were.
    later = {
        "hardsigmoid": F.hardsigmoid,
        "hardswish": F.hardswish,
        "elu": F.elu,
        "elu_05": lambda x: F.elu(x, 0.5),
    }
    for name, fn in later.items():
        for shape in shapes:
            x = torch.randn(shape) * 3
            yield f"{name}_{'x'.join(map(str, shape))}", fn, (x,)
        yield f"{name}_specials", fn, (with_specials(torch.randn(17) * 30),)
    # prelu: one slope per channel (dim 1) or one for all; slopes of both
    # signs. (Added after the cases above, as those.)
    prelu = [("2x3x5", (2, 3, 5), 3), ("2x3x4x4", (2, 3, 4, 4), 3),
             ("2x3x4x4_shared", (2, 3, 4, 4), 1), ("7", (7,), 1)]
    for name, shape, slopes in prelu:
        yield f"prelu_{name}", F.prelu, (torch.randn(shape) * 3,
                                         torch.rand(slopes) - 0.5)
    yield "prelu_specials", F.prelu, (with_specials(torch.randn(2, 3, 5) * 30),
                                      torch.rand(3))
    # More activation layers' functions. (Added after the cases above, as
    # those.) softplus_b2_t5's inputs cross its threshold; hardshrink and
    # softshrink with lambd 1.5 keep both sides.
    more = {
        "selu": F.selu,
        "celu_05": lambda x: F.celu(x, 0.5),
        "softplus": F.softplus,
        "softplus_b2_t5": lambda x: F.softplus(x, beta=2, threshold=5),
        "mish": F.mish,
        "logsigmoid": F.logsigmoid,
        "softsign": F.softsign,
        "tanhshrink": F.tanhshrink,
        "hardshrink": F.hardshrink,
        "softshrink_15": lambda x: F.softshrink(x, 1.5),
        "threshold": lambda x: F.threshold(x, 0.1, 20.0),
    }
    for name, fn in more.items():
        for shape in shapes:
            x = torch.randn(shape) * 3
            yield f"{name}_{'x'.join(map(str, shape))}", fn, (x,)
        yield f"{name}_specials", fn, (with_specials(torch.randn(17) * 30),)
    yield "glu_3x4", F.glu, (torch.randn(3, 4) * 3,)
    yield "glu_2x6x5_dim1", lambda x: F.glu(x, 1), (torch.randn(2, 6, 5) * 3,)
    yield "softmin_3x17_dim1", lambda x: F.softmin(x, dim=1), (torch.randn(3, 17) * 4,)
