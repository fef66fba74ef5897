#!/usr/bin/python3
"""Compares two safetensors files tensor by tensor, as torch.testing does.

    compare_safetensors.py ACTUAL EXPECTED [--rtol R] [--atol A]

Both files must hold the same names, shapes and dtypes; values must satisfy
|actual - expected| <= atol + rtol * |expected| (float32 defaults of
torch.testing.assert_close). Exits 1 and says which tensor differs otherwise.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import safetensors_io  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("actual")
    parser.add_argument("expected")
    parser.add_argument("--rtol", type=float, default=1.3e-6)
    parser.add_argument("--atol", type=float, default=1e-5)
    args = parser.parse_args()
    actual = safetensors_io.load_file(args.actual)
    expected = safetensors_io.load_file(args.expected)
    if list(actual) != list(expected):
        sys.exit(f"names differ: {sorted(actual)} vs {sorted(expected)}")
    for name, want in expected.items():
        got = actual[name]
        try:
            torch.testing.assert_close(got, want, rtol=args.rtol, atol=args.atol)
        except AssertionError as error:
            sys.exit(f"{name}: {error}")
        diff = (got.double() - want.double()).abs()
        print(f"{name}: ok, max abs diff "
              f"{diff.max().item() if diff.numel() else 0:.3g}")


if __name__ == "__main__":
    main()
