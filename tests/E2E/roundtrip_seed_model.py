#!/usr/bin/python3
"""nn-opt round-trips a seed model's IR: print → parse → print is identical.

    roundtrip_seed_model.py --bin BIN --work DIR MODEL [--train]

The first print is the tracer's (nn-trace-seed-model). Then, each through
nn-opt with no pass:
  1. the trace, parsed and printed, is the trace byte for byte;
  2. the trace printed with its locations (each op's module path,
     loc("blocks.1.attention")), parsed and printed with
     --mlir-print-debuginfo, is identical: the locations survive;
  3. the generic form (--mlir-print-op-generic), parsed and printed in the
     custom form, is the trace: the custom assembly formats and the generic
     form describe the same ops and attributes.
Exits non-zero with a unified diff of the first difference.
"""
import argparse
import difflib
import os
import subprocess
import sys


def run(command, stdin_text=None):
    result = subprocess.run(command, input=stdin_text, capture_output=True,
                            text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed (exit code "
                 f"{result.returncode}):\n{result.stderr}")
    return result.stdout


def expect_same(what, expected, actual):
    if expected == actual:
        print(f"{what}: identical ({len(actual.splitlines())} lines)")
        return True
    diff = difflib.unified_diff(expected.splitlines(True),
                                actual.splitlines(True), "expected", "actual")
    sys.stderr.write(f"{what}: differs\n" + "".join(list(diff)[:60]))
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("--bin", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--train", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    nn_opt = os.path.join(args.bin, "nn-opt")

    trace_command = [os.path.join(args.bin, "nn-trace-seed-model"),
                     args.model] + (["--train"] if args.train else [])
    trace = run(trace_command)
    with open(os.path.join(args.work, "trace.mlir"), "w",
              encoding="utf-8") as f:
        f.write(trace)

    ok = True
    printed = run([nn_opt, "-"], trace)
    ok &= expect_same("trace → nn-opt", trace, printed)

    located = run(trace_command + ["--debug-info"])
    if "loc(\"" not in located:
        sys.exit("the trace with --debug-info has no module-path locations")
    again = run([nn_opt, "--mlir-print-debuginfo", "-"], located)
    ok &= expect_same("with locations → nn-opt", located, again)

    generic = run([nn_opt, "--mlir-print-op-generic", "-"], trace)
    ok &= expect_same("generic → nn-opt", trace, run([nn_opt, "-"], generic))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
