"""Writes zero_size.mlir's weights and inputs, and PyTorch's outputs."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "reference"))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import safetensors_io  # noqa: E402

out = sys.argv[1]
weights = {
    "fc.weight": torch.zeros(3, 0),
    "fc.bias": torch.tensor([1.5, -2.0, 3.25]),
}
inputs = {
    "input.0": torch.zeros(2, 0),
    "input.1": torch.zeros(0, 3),
    "input.2": torch.zeros(0, 4),
}
outputs = {
    "output.0": F.linear(inputs["input.0"], weights["fc.weight"], weights["fc.bias"]),
    "output.1": inputs["input.0"] @ inputs["input.1"],
    "output.2": torch.relu(inputs["input.2"]),
}
for name, tensors in [("weights", weights), ("inputs", inputs), ("expected", outputs)]:
    safetensors_io.save_file(tensors, os.path.join(out, name + ".safetensors"))
