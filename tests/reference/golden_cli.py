"""The command line the golden generators share: write the goldens, or with
--check regenerate them into a temporary folder and compare them with the
committed ones (the ctest GeneratorReproducesCommittedFiles).

What --check compares is the generator, not the CPU it runs on. PyTorch's
float kernels take other code paths on other CPUs (its convolution on an
AVX-512 machine rounds differently from an AVX2 one), so a regenerated
safetensors file may differ from the committed one in the last bits while
the generator is unchanged. --check therefore requires of each safetensors
file the same names, dtypes, shapes, metadata and integer values, and float
values within torch.testing.assert_close's default tolerances for their
dtype (float32: rtol 1.3e-6, atol 1e-5) -- a change to the generator moves
values far beyond that. Every other file, and with --exact every file,
must match byte for byte: the check for the machine that regenerates them.
A generator with values that are measurements of the CPU rather than
results of the generator (PyTorch's own float32 error on a whole deep
network) gives their tolerance by name, with its reason.
"""

import argparse
import os
import sys
import tempfile

import torch

import safetensors_io


def parser(doc, default_out):
    """An argument parser with --check, --exact and --out, described by
    `doc`'s first line."""
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("--check", action="store_true",
                   help="regenerate into a temporary folder and compare "
                        "with the committed goldens")
    add_exact(p)
    p.add_argument("--out", default=default_out,
                   help="output folder (default: %(default)s)")
    return p


def add_exact(p):
    p.add_argument("--exact", action="store_true",
                   help="with --check: compare safetensors files byte for "
                        "byte too, not within float tolerance")


def difference(committed, fresh, exact=False, tolerance_of=None):
    """Why the bytes `fresh` of a regenerated golden do not stand for the
    committed file at path `committed` (see the module comment), or None
    when they do. `tolerance_of(name)`, when given, returns the rtol and
    atol (a dict) for the tensor `name`, or None for the default."""
    if not os.path.exists(committed):
        return "not committed"
    with open(committed, "rb") as f:
        old = f.read()
    if old == fresh:
        return None
    if exact or not committed.endswith(".safetensors"):
        return "bytes differ"
    try:
        old_tensors, old_meta = safetensors_io.load(old)
    except safetensors_io.SafetensorError as error:
        return f"committed file unreadable: {error}"
    new_tensors, new_meta = safetensors_io.load(fresh)
    if old_meta != new_meta:
        return "metadata differs"
    if sorted(old_tensors) != sorted(new_tensors):
        return (f"names differ: {sorted(old_tensors)} committed, "
                f"{sorted(new_tensors)} generated")
    for name, want in old_tensors.items():
        got = new_tensors[name]
        if got.dtype != want.dtype or got.shape != want.shape:
            return (f"{name}: {want.dtype}{list(want.shape)} committed, "
                    f"{got.dtype}{list(got.shape)} generated")
        try:
            # Integers and bools compare exactly, floats within the dtype's
            # default tolerance.
            tolerance = (tolerance_of(name) if tolerance_of else None) or {}
            torch.testing.assert_close(got, want, equal_nan=True,
                                       **tolerance)
        except AssertionError as error:
            return f"{name}: {' '.join(str(error).split())}"
    return None


def report(stale, what):
    """Prints the stale goldens (path, reason) or that all are up to date;
    returns the exit status."""
    if stale:
        print(f"{what} differ from what {os.path.basename(sys.argv[0])} "
              "writes now (rerun it without --check):", file=sys.stderr)
        for path, reason in stale:
            print(f"  {path}: {reason}", file=sys.stderr)
        return 1
    print(f"{what} are up to date")
    return 0


def write_or_check(generate, args, what, tolerance_of=None):
    """Runs generate(folder), which returns the relative paths it wrote, into
    args.out, or with args.check into a temporary folder compared with
    args.out (with `tolerance_of`, see difference). Returns the exit
    status."""
    if not args.check:
        for relative in generate(args.out):
            print(os.path.join(args.out, relative))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        stale = []
        for relative in generate(tmp):
            committed = os.path.join(args.out, relative)
            with open(os.path.join(tmp, relative), "rb") as f:
                reason = difference(committed, f.read(), args.exact,
                                    tolerance_of)
            if reason:
                stale.append((committed, reason))
    return report(stale, what)
