#!/usr/bin/python3
"""One seed model through the ahead-of-time tools, compared with PyTorch.

    aot_seed_model.py --bin BIN --work DIR MODEL (--eval | --train | --hook CASE)
                      [--rtol R] [--atol A]

Runs what a user would: nn-trace-seed-model MODEL > model.mlir, nn-compile
model.mlir -o model.so, nn-run model.so WEIGHTS INPUTS -o outputs, then
compares outputs with the PyTorch goldens of
tests/reference/generate_zoo_goldens.py (compare_safetensors.py: same names,
shapes, dtypes, |actual - expected| <= atol + rtol * |expected|).

--train traces in training mode and runs nn-run once per golden step, each
step on the state the previous one saved (--state-out), comparing the output
and the updated state_dict (BatchNorm's running statistics) every time.
--hook CASE traces the ResNet with the hooks of HOOK_CASES[CASE].

Exits non-zero naming the step and the tool that failed.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "reference")
sys.dont_write_bytecode = True
sys.path.insert(0, REFERENCE)
from generate_zoo_goldens import GOLDENS, HOOK_CASES, weights_of  # noqa: E402


def run(step, command, stdout=None):
    """Runs command; exits with its output when it fails."""
    print("+ " + " ".join(command), flush=True)
    result = subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE,
                            text=True)
    if result.stderr:
        sys.stderr.write(result.stderr)
    if result.returncode != 0:
        sys.exit(f"{step} failed (exit code {result.returncode})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("--bin", required=True,
                        help="folder of nn-trace-seed-model, nn-compile, nn-run")
    parser.add_argument("--work", required=True, help="scratch folder")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--eval", action="store_true")
    mode.add_argument("--train", action="store_true")
    mode.add_argument("--hook", choices=sorted(HOOK_CASES))
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--atol", type=float, default=1e-5)
    args = parser.parse_args()

    tool = lambda name: os.path.join(args.bin, name)  # noqa: E731
    os.makedirs(args.work, exist_ok=True)
    work = lambda name: os.path.join(args.work, name)  # noqa: E731
    zoo = os.path.join(GOLDENS, "zoo", args.model)
    # PyTorch's own state_dict() file: the artifact carries the
    # non-persistent buffers that no state_dict holds.
    weights = os.path.join(GOLDENS, weights_of(args.model))

    trace = [tool("nn-trace-seed-model"), args.model]
    if args.train:
        trace.append("--train")
        steps = sorted(d for d in os.listdir(os.path.join(zoo, "train")))
        goldens = [os.path.join(zoo, "train", d) for d in steps]
    elif args.hook:
        trace += HOOK_CASES[args.hook][0]
        goldens = [os.path.join(GOLDENS, "zoo", "hooks", args.hook)]
    else:
        goldens = [os.path.join(zoo, "eval")]

    with open(work("model.mlir"), "w", encoding="utf-8") as mlir:
        run("tracing", trace, stdout=mlir)
    run("compiling", [tool("nn-compile"), work("model.mlir"),
                      "-o", work("model.so")])
    compare = [sys.executable,
               os.path.join(REFERENCE, "compare_safetensors.py"),
               "--rtol", str(args.rtol), "--atol", str(args.atol)]
    for i, golden in enumerate(goldens):
        at = os.path.basename(golden)
        outputs, state = work(f"outputs.{i}.safetensors"), \
            work(f"state.{i}.safetensors")
        command = [tool("nn-run"), work("model.so"), weights,
                   os.path.join(golden, "inputs.safetensors"), "-o", outputs]
        if args.train:
            command += ["--state-out", state]
        run(f"{at}: running", command)
        run(f"{at}: comparing the outputs",
            compare + [outputs, os.path.join(golden, "outputs.safetensors")])
        if args.train:
            run(f"{at}: comparing the updated state",
                compare + [state, os.path.join(golden, "state.safetensors")])
            weights = state  # the next step starts from this one's state
    return 0


if __name__ == "__main__":
    sys.exit(main())
