"""raw_tensors.py to-raw FILE.safetensors NAME OUT.bin
   raw_tensors.py compare OUT.bin FILE.safetensors NAME

Writes one tensor of a safetensors file as raw bytes, or compares raw
float32 bytes with it as torch.testing does (float32 tolerances)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "reference"))
import torch  # noqa: E402

import safetensors_io  # noqa: E402

if sys.argv[1] == "to-raw":
    tensor = safetensors_io.load_file(sys.argv[2])[sys.argv[3]]
    with open(sys.argv[4], "wb") as f:
        f.write(tensor.contiguous().numpy().tobytes())
else:
    want = safetensors_io.load_file(sys.argv[3])[sys.argv[4]]
    with open(sys.argv[2], "rb") as f:
        got = torch.frombuffer(bytearray(f.read()), dtype=torch.float32)
    torch.testing.assert_close(got.reshape(want.shape), want)
    print(f"{sys.argv[4]}: ok")
