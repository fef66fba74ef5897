#!/usr/bin/python3
"""Generates the per-op gradient goldens: tests/reference/goldens/grads/<family>/<case>.safetensors.

For every op case of tests/reference/ops/<family>.py that nn differentiates
(the families and exclusions below), with the case's floating-point inputs
requiring grad: out = fn(*inputs) (its first output), a seeded weight R
shaped like it, and PyTorch's autograd of sum(out * R). Saved: the inputs
(input.0, ...), R (weight.0), the gradient of each differentiated input
(grad.input.i), and which inputs are differentiated (metadata
"differentiable": "0,1"). tests/E2E/GradTest.cpp traces the same C++
case, differentiates sum(out * R) with nn-autodiff and compares; it also
checks every gradient against float64 finite differences.

    generate_grad_goldens.py [--check [--exact]] [family ...]

Run with /usr/bin/python3 (Debian's torch imports only there).
"""
import argparse
import fnmatch
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch  # noqa: E402

import golden_cli  # noqa: E402
import safetensors_io  # noqa: E402

OUT = os.path.join(HERE, "goldens", "grads")

# The op families nn differentiates, and the cases left out of each, with
# the reason.
FAMILIES = {
    "activation": {
        # NaN and ±inf inputs: no finite differences to compare with.
        "*_specials": "non-finite inputs",
        "relu_3x17": "non-finite inputs",
    },
    "elementwise": {
        "*_i64": "integer inputs have no gradient",
        "eq_*": "comparisons have no gradient", "ne_*": "comparisons have no gradient",
        "lt_*": "comparisons have no gradient", "le_*": "comparisons have no gradient",
        "gt_*": "comparisons have no gradient", "ge_*": "comparisons have no gradient",
        "*_edges": "inputs at the edge of the domain (0, negative): no derivative",
        "maximum_nan": "NaN inputs", "minimum_nan": "NaN inputs",
    },
    "dense": {
        "addmm*": "addmm has no gradient rule yet",
    },
    "loss": {
        "*all_ignored*": "every target ignored: the mean is NaN",
        "ce_probs_*": "probability targets are differentiated in the targets too; not yet",
        "bce_edges_*": "probabilities of 0 and 1: log has no derivative there",
        "kl_div_zero_target_*": "target zeros: log has no derivative at 0",
    },
    "normalization": {
        "*_i64*": "integer inputs have no gradient",
        "*nan*": "NaN inputs",
        "argmax*": "integer outputs", "argmin*": "integer outputs",
        "BatchNorm*": "a module layer: its C++ twin is a layer test",
        "LayerNorm_*": "a module layer: its C++ twin is a layer test",
        "GroupNorm_*": "a module layer: its C++ twin is a layer test",
        "InstanceNorm*": "a module layer: its C++ twin is a layer test",
        "cosine_similarity_tiny_row_*": "a row inside the eps clamp: a finite "
                                        "difference step crosses the clamp",
    },
    "attention": {},
    "convolution": {
        "layer_*": "a module layer: its C++ twin is a layer test",
    },
    "shape": {
        "layer_*": "a module layer: its C++ twin is a layer test",
        "tied_embedding_lm": "a module: its C++ twin is a layer test",
        "*_i64*": "integer inputs have no gradient",
        "reshape_i64": "integer inputs have no gradient",
        "transpose_i64": "integer inputs have no gradient",
        "channel_shuffle_*": "PyTorch 1.13 has no gradient for channel_shuffle "
                             "(nn's is reshape's and transpose's)",
    },
}
WEIGHT_SEED = 1234


def excluded(family, name):
    return next((why for pattern, why in FAMILIES[family].items()
                 if fnmatch.fnmatch(name, pattern)), None)


def weighted_sum(fn, inputs, wanted):
    """The inputs (those of `wanted` requiring grad) after autograd of
    sum(fn(inputs)[0] · R), and R; None when the first output is not
    floating-point."""
    inputs = [t.detach().clone().requires_grad_(i in wanted)
              for i, t in enumerate(inputs)]
    result = fn(*inputs)
    out = result[0] if isinstance(result, (tuple, list)) else result
    if not out.is_floating_point():
        return None, None
    gen = torch.Generator().manual_seed(WEIGHT_SEED)
    weight = torch.randn(out.shape, generator=gen, dtype=out.dtype)
    (out * weight).sum().backward()
    return inputs, weight


def differentiable_inputs(fn, inputs):
    """The floating-point inputs PyTorch differentiates: not those it
    refuses to (a loss's class weight, batch norm's running statistics)."""
    wanted = [i for i, t in enumerate(inputs) if t.is_floating_point()]
    try:
        weighted_sum(fn, inputs, wanted)
        return wanted
    except RuntimeError:
        def accepted(i):
            try:
                weighted_sum(fn, inputs, [i])
                return True
            except RuntimeError:
                return False
        return [i for i in wanted if accepted(i)]


def case_files(family):
    module = importlib.import_module(f"ops.{family}")
    files = {}
    for name, fn, inputs in module.cases():
        if excluded(family, name):
            continue
        wanted = differentiable_inputs(fn, inputs)
        inputs, weight = weighted_sum(fn, inputs, wanted)
        if inputs is None:
            continue
        tensors = {f"input.{i}": t.detach().contiguous()
                   for i, t in enumerate(inputs)}
        tensors["weight.0"] = weight
        for i, t in enumerate(inputs):
            if t.grad is not None:
                tensors[f"grad.input.{i}"] = t.grad.contiguous()
        # Which inputs are differentiated: those with a gradient. The others
        # (integer targets, class weights, running statistics, tensors a
        # case copies into a module) are constants to the test as well.
        differentiable = ",".join(str(i) for i, t in enumerate(inputs)
                                  if t.grad is not None)
        files[os.path.join(OUT, family, name + ".safetensors")] = \
            safetensors_io.serialize(tensors, {"differentiable": differentiable})
    return files


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    golden_cli.add_exact(parser)
    parser.add_argument("families", nargs="*", default=list(FAMILIES))
    args = parser.parse_args()
    torch.set_num_threads(1)
    stale = []
    for family in args.families:
        files = case_files(family)
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
        return golden_cli.report(stale, "gradient goldens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
