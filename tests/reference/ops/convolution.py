"""PyTorch goldens for nn's convolution, pooling and resampling ops.

cases() yields (name, fn, inputs): generate_op_goldens.py saves inputs as
input.0, input.1, ... and fn(*inputs) as output.0, ... into
goldens/ops/convolution/<name>.safetensors. The C++ twin of each case is in
tests/E2E/OpsConvolutionTest.cpp under the same name.
"""
import torch
import torch.nn.functional as F  # noqa: F401


def cases():
    torch.manual_seed(0)
    return
    yield
