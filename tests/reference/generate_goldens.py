#!/usr/bin/python3
"""Generates the PyTorch goldens nn is tested against.

Run with the system interpreter (Debian's python3-torch is importable only
there):

    /usr/bin/python3 tests/reference/generate_goldens.py          # rewrite
    /usr/bin/python3 tests/reference/generate_goldens.py --check  # compare

Everything is seeded (torch.manual_seed(0)) and single-threaded, so every run
writes identical bytes; --check regenerates into a temporary folder and fails
when any committed golden differs. Files are written with safetensors_io,
which produces the bytes safetensors.torch.save_file would.

Goldens (under tests/reference/goldens/):
  simple_mlp/weights.safetensors   state_dict of SimpleMLP (eval mode)
  simple_mlp/inputs.safetensors    "input.0": torch.randn(64, 784)
  simple_mlp/outputs.safetensors   "output.0": model(input) in eval mode
  simple_mlp/outputs_{bf16,f16}.safetensors
                                   "output.0": the model and input converted
                                   to bfloat16 / float16, see
                                   low_precision_forward()
  simple_mlp/weights_bf16.safetensors
                                   model.to(torch.bfloat16).state_dict(), the
                                   bytes nn's bfloat16 state_dict must save to
  simple_mlp/inputs_bf16.safetensors
                                   "input.0" converted to bfloat16 (nn-run)
  interop/sample.safetensors       one tensor of every dtype nn has, see
                                   interop_sample_tensors(); C++ builds the
                                   same tensors in
                                   tests/Unit/Runtime/InteropSample.h
"""

import os
import sys

import torch
from torch import nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
# Leave no __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import golden_cli  # noqa: E402
import safetensors_io  # noqa: E402

GOLDENS = os.path.join(HERE, "goldens")


class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(256, 256)
        self.fc3 = nn.Linear(256, 10)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        x = self.dropout(torch.relu(self.fc1(x)))
        x = self.dropout(torch.relu(self.fc2(x)))
        return self.fc3(x)


def interop_sample_tensors():
    """Tensors of every dtype nn has; names sort differently by dtype than by
    name. Must match interopSampleTensors() in InteropSample.h."""
    return {
        "a_bool": torch.tensor([True, False, True]),
        "b_u8": torch.tensor([0, 1, 127, 128, 255], dtype=torch.uint8),
        "c_i32": torch.arange(-3, 3, dtype=torch.int32).reshape(3, 2),
        # 3.3895313892515355e38 is the largest finite bfloat16.
        "d_bf16": torch.tensor([1.0, -3.0, 0.15625, 3.3895313892515355e38],
                               dtype=torch.bfloat16),
        # 65504 is the largest finite half, 2**-24 the smallest subnormal.
        "e_f16": torch.tensor([[1.0, -2.0, 0.5], [65504.0, 2.0**-24, -0.0]],
                              dtype=torch.float16),
        "empty": torch.zeros(0, 3),
        "f_f64": torch.tensor([0.1, -2.5, 1e300], dtype=torch.float64),
        "g_i64": torch.tensor([-(2**40), -1, 0, 1, 2**62], dtype=torch.int64),
        "h_f32": torch.arange(6, dtype=torch.float32).reshape(2, 3) * 0.5 - 1,
        "i_i8": torch.tensor([-128, -1, 0, 127], dtype=torch.int8),
        "layers.0.weight": torch.arange(1, 5, dtype=torch.float32).reshape(2, 2),
        "scalar": torch.tensor(42.0),
        "\u00fcnicode": torch.tensor([7.0]),
    }


INTEROP_METADATA = {"format": "pt"}


def low_precision_forward(model, x, dtype):
    """SimpleMLP in eval mode with parameters and input converted to `dtype`
    (float16 or bfloat16): each linear computes in float32 on the widened
    operands and rounds its output once to `dtype` (relu is exact), as nn and
    PyTorch's CUDA/oneDNN kernels do. torch 1.13 has no float16 linear on the
    CPU, and its bfloat16 CPU fallback rounds partial sums to bfloat16 (see
    tests/reference/ops/half.py), so neither is used."""
    layers = [model.fc1, model.fc2, model.fc3]
    h = x.to(dtype)
    for i, fc in enumerate(layers):
        v = F.linear(h.float(), fc.weight.to(dtype).float(),
                     fc.bias.to(dtype).float())
        h = (torch.relu(v) if i < len(layers) - 1 else v).to(dtype)
    return h


def generate(out_dir):
    """Writes every golden under out_dir; returns their relative paths."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    written = []

    def save(relative, tensors, metadata=None):
        path = os.path.join(out_dir, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        safetensors_io.save_file(tensors, path, metadata)
        written.append(relative)

    model = SimpleMLP().eval()
    x = torch.randn(64, 784)
    with torch.no_grad():
        y = model(x)
    save("simple_mlp/weights.safetensors",
         {k: v.contiguous() for k, v in model.state_dict().items()})
    save("simple_mlp/inputs.safetensors", {"input.0": x})
    save("simple_mlp/outputs.safetensors", {"output.0": y})
    with torch.no_grad():
        for name, dtype in (("bf16", torch.bfloat16), ("f16", torch.float16)):
            save(f"simple_mlp/outputs_{name}.safetensors",
                 {"output.0": low_precision_forward(model, x, dtype)})
    save("simple_mlp/inputs_bf16.safetensors",
         {"input.0": x.to(torch.bfloat16)})
    save("simple_mlp/weights_bf16.safetensors",
         {k: v.to(torch.bfloat16).contiguous()
          for k, v in model.state_dict().items()})

    save("interop/sample.safetensors", interop_sample_tensors(),
         INTEROP_METADATA)
    return written


def main():
    args = golden_cli.parser(__doc__, GOLDENS).parse_args()
    return golden_cli.write_or_check(generate, args, "goldens")


if __name__ == "__main__":
    sys.exit(main())
