"""Writes input.0 = ones(16, 16) and an empty weights file into a folder."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "reference"))
import torch  # noqa: E402

import safetensors_io  # noqa: E402

out = sys.argv[1]
safetensors_io.save_file({"input.0": torch.ones(16, 16)},
                         os.path.join(out, "ones.safetensors"))
safetensors_io.save_file({}, os.path.join(out, "empty.safetensors"))
