"""Writes an input for double_relu.mlir, PyTorch's output for it and an empty
weights file into a folder."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "reference"))
import torch  # noqa: E402

import safetensors_io  # noqa: E402

out = sys.argv[1]
torch.manual_seed(0)
x = torch.randn(262144)
safetensors_io.save_file({"input.0": x}, os.path.join(out, "inputs.safetensors"))
safetensors_io.save_file({"output.0": torch.relu(x + x)},
                         os.path.join(out, "expected.safetensors"))
safetensors_io.save_file({}, os.path.join(out, "weights.safetensors"))
