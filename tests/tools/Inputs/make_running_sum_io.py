"""Writes running_sum.mlir's weights (stats.running_sum) and input into a
folder: weights.safetensors and inputs.safetensors."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "reference"))
import torch  # noqa: E402

import safetensors_io  # noqa: E402

out = sys.argv[1]
safetensors_io.save_file({"stats.running_sum": torch.tensor([1.0, 2.0, 3.0, 4.0])},
                         os.path.join(out, "weights.safetensors"))
safetensors_io.save_file({"input.0": torch.tensor([0.5, 1.0, -2.0, 0.25])},
                         os.path.join(out, "inputs.safetensors"))
