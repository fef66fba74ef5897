"""Writes wrong inputs for the SimpleMLP artifact (64x784 float32) into a folder."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "reference"))
import torch  # noqa: E402

import safetensors_io  # noqa: E402

out = sys.argv[1]
good = torch.zeros(64, 784)
safetensors_io.save_file({}, os.path.join(out, "missing.safetensors"))
safetensors_io.save_file({"input.0": good, "input.1": good},
                         os.path.join(out, "extra.safetensors"))
safetensors_io.save_file({"input.0": torch.zeros(2, 784)},
                         os.path.join(out, "shape.safetensors"))
safetensors_io.save_file({"input.0": torch.zeros(64, 784, dtype=torch.float64)},
                         os.path.join(out, "dtype.safetensors"))
safetensors_io.save_file({"fc1.weight": torch.zeros(256, 784)},
                         os.path.join(out, "partial_weights.safetensors"))
mlp = {"fc1.weight": torch.zeros(256, 784), "fc1.bias": torch.zeros(256),
       "fc2.weight": torch.zeros(256, 256), "fc2.bias": torch.zeros(256),
       "fc3.weight": torch.zeros(10, 256), "fc3.bias": torch.zeros(10)}
safetensors_io.save_file(dict(mlp, **{"fc4.weight": torch.zeros(2),
                                      "head.bias": torch.zeros(2)}),
                         os.path.join(out, "extra_weights.safetensors"))
