"""make_zero_weights.py IN OUT [--transpose NAME]

Writes IN's tensors to OUT as zeros of the same shapes, or with --transpose
as they are but NAME transposed (a shape mismatch)."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "reference"))
import torch  # noqa: E402

import safetensors_io  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("source")
parser.add_argument("out")
parser.add_argument("--transpose")
args = parser.parse_args()
tensors = safetensors_io.load_file(args.source)
if args.transpose:
    tensors[args.transpose] = tensors[args.transpose].t().contiguous()
else:
    tensors = {k: torch.zeros_like(v) for k, v in tensors.items()}
safetensors_io.save_file(tensors, args.out)
