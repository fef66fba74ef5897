"""PyTorch goldens for nn's reshaping, slicing, joining and indexing ops.

cases() yields (name, fn, inputs): generate_op_goldens.py saves inputs as
input.0, input.1, ... and fn(*inputs) as output.0, ... into
goldens/ops/shape/<name>.safetensors. The C++ twin of each case is in
tests/E2E/OpsShapeTest.cpp under the same name.
"""
import torch
import torch.nn.functional as F  # noqa: F401


def cases():
    torch.manual_seed(0)
    return
    yield
