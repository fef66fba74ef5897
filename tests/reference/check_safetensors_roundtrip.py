#!/usr/bin/python3
"""Checks a safetensors file that nn wrote, from the PyTorch side.

    /usr/bin/python3 tests/reference/check_safetensors_roundtrip.py FILE

FILE must hold the interop sample (generate_goldens.interop_sample_tensors()
with metadata {"format": "pt"}), as tests/Unit/Runtime/write_interop_sample
writes it. The file is read with safetensors_io, which validates it as
safetensors.torch does; every tensor must have the expected dtype, shape and
bytes, and the file must be byte-identical to what safetensors.torch.save_file
writes for the same tensors. Exits non-zero, saying what differs, otherwise.
"""

import os
import sys

import torch

# Leave no __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate_goldens  # noqa: E402
import safetensors_io  # noqa: E402


def check(path):
    with open(path, "rb") as f:
        data = f.read()
    tensors, metadata = safetensors_io.load(data)
    expected = generate_goldens.interop_sample_tensors()
    errors = []
    if metadata != generate_goldens.INTEROP_METADATA:
        errors.append(f"metadata is {metadata!r}, expected "
                      f"{generate_goldens.INTEROP_METADATA!r}")
    order = safetensors_io.layout_order(expected)
    if list(tensors) != order:
        errors.append(f"tensor order is {list(tensors)}, expected {order}")
    for name, want in expected.items():
        got = tensors.get(name)
        if got is None:
            errors.append(f"{name}: missing")
            continue
        if got.dtype != want.dtype or got.shape != want.shape:
            errors.append(f"{name}: {got.dtype}{list(got.shape)}, expected "
                          f"{want.dtype}{list(want.shape)}")
            continue
        # Compare bits, so -0.0 and exact float16/bfloat16 patterns count.
        if safetensors_io._tobytes(got) != safetensors_io._tobytes(want):
            errors.append(f"{name}: values {got.tolist()}, expected "
                          f"{want.tolist()}")
    reference = safetensors_io.serialize(expected,
                                         generate_goldens.INTEROP_METADATA)
    if data != reference:
        first = next((i for i, (a, b) in enumerate(zip(data, reference))
                      if a != b), min(len(data), len(reference)))
        errors.append(f"bytes differ from safetensors.torch's at offset "
                      f"{first} (file {len(data)} bytes, expected "
                      f"{len(reference)})")
    return errors


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        errors = check(sys.argv[1])
    except (OSError, safetensors_io.SafetensorError) as e:
        print(f"{sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    for error in errors:
        print(f"{sys.argv[1]}: {error}", file=sys.stderr)
    if errors:
        return 1
    print(f"{sys.argv[1]}: read by PyTorch, {torch.__version__}: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
