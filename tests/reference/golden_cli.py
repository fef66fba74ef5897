"""The command line the golden generators share: write the goldens, or with
--check regenerate them into a temporary folder and compare byte for byte
with the committed ones (the ctest GeneratorReproducesCommittedFiles)."""

import argparse
import filecmp
import os
import sys
import tempfile


def parser(doc, default_out):
    """An argument parser with --check and --out, described by `doc`'s
    first line."""
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("--check", action="store_true",
                   help="regenerate into a temporary folder and compare "
                        "with the committed goldens")
    p.add_argument("--out", default=default_out,
                   help="output folder (default: %(default)s)")
    return p


def write_or_check(generate, args, what):
    """Runs generate(folder), which returns the relative paths it wrote, into
    args.out, or with args.check into a temporary folder compared with
    args.out. Returns the exit status."""
    if not args.check:
        for relative in generate(args.out):
            print(os.path.join(args.out, relative))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        stale = []
        for relative in generate(tmp):
            committed = os.path.join(args.out, relative)
            if not (os.path.exists(committed) and filecmp.cmp(
                    committed, os.path.join(tmp, relative), shallow=False)):
                stale.append(committed)
    if stale:
        print(f"{what} differ from what {os.path.basename(sys.argv[0])} "
              "writes now (rerun it without --check):", file=sys.stderr)
        for path in stale:
            print("  " + path, file=sys.stderr)
        return 1
    print(f"{what} are up to date")
    return 0
