"""PyTorch goldens for nn's elementwise ops (arithmetic, math, comparisons).

cases() yields (name, fn, inputs): generate_op_goldens.py saves inputs as
input.0, input.1, ... and fn(*inputs) as output.0, ... into
goldens/ops/elementwise/<name>.safetensors. The C++ twin of each case is in
tests/E2E/OpsElementwiseTest.cpp under the same name.
"""
import torch


def cases():
    torch.manual_seed(0)
    # Sizes that are not multiples of any vector width, and broadcasting.
    yield "add_1", torch.add, (torch.randn(1), torch.randn(1))
    yield "add_17", torch.add, (torch.randn(17), torch.randn(17))
    yield "add_broadcast_2x1x7_3x7", torch.add, (torch.randn(2, 1, 7), torch.randn(3, 7))
    yield "add_broadcast_scalar_3x5", torch.add, (torch.randn(3, 5), torch.randn(()))
    yield "add_i64", torch.add, (torch.arange(-5, 6), torch.arange(11) * 3)
