#!/usr/bin/python3
"""Generates the per-op PyTorch goldens: tests/reference/goldens/ops/<family>/<case>.safetensors.

Each family module in tests/reference/ops/ yields (name, fn, inputs) from
cases(); this script saves the inputs as input.0, input.1, … and fn's
result (a tensor or a tuple of them) as output.0, output.1, … The C++ twin
of every case (tests/E2E/Ops<Family>Test.cpp) traces the same computation over
the same inputs and compares.

    generate_op_goldens.py [--check] [family ...]

--check regenerates in memory and fails if a committed file differs beyond
float tolerance (--exact: in any byte); see golden_cli.py.
Run with /usr/bin/python3 (Debian's torch imports only there).
"""
import argparse
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch  # noqa: E402

import golden_cli  # noqa: E402
import safetensors_io  # noqa: E402

FAMILIES = ["activation", "elementwise", "convolution", "normalization", "shape",
            "loss", "lstm", "attention", "dense", "transformer", "models",
            "half", "fused"]
OUT = os.path.join(HERE, "goldens", "ops")


def family_files(family):
    module = importlib.import_module(f"ops.{family}")
    files = {}
    for name, fn, inputs in module.cases():
        if name in files:
            raise SystemExit(f"{family}: duplicate case {name}")
        with torch.no_grad():
            result = fn(*inputs)
        outputs = result if isinstance(result, (tuple, list)) else (result,)
        tensors = {f"input.{i}": t.contiguous() for i, t in enumerate(inputs)}
        tensors.update({f"output.{i}": t.contiguous() for i, t in enumerate(outputs)})
        files[os.path.join(OUT, family, name + ".safetensors")] = \
            safetensors_io.serialize(tensors)
    return files


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    golden_cli.add_exact(parser)
    parser.add_argument("families", nargs="*", default=FAMILIES)
    args = parser.parse_args()
    torch.set_num_threads(1)  # reductions in one fixed order
    stale = []
    for family in args.families:
        files = family_files(family)
        folder = os.path.join(OUT, family)
        if args.check:
            on_disk = set(os.listdir(folder)) if os.path.isdir(folder) else set()
            expected = {os.path.basename(p) for p in files}
            stale += [(f"{family}/{n}", "not generated")
                      for n in sorted(on_disk - expected)]
            for path, data in files.items():
                reason = golden_cli.difference(path, data, args.exact)
                if reason:
                    stale.append((os.path.relpath(path, OUT), reason))
            continue
        os.makedirs(folder, exist_ok=True)
        for path, data in files.items():
            with open(path, "wb") as f:
                f.write(data)
        print(f"{family}: {len(files)} cases")
    if args.check:
        return golden_cli.report(stale, "op goldens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
