#!/usr/bin/env python3
"""Checks the dialect reference generated from ODS (add_mlir_doc).

    check_dialect_doc.py NNDialect.md [other generated .md ...]

Every file must exist and be non-empty. In the dialect reference (the first
file), every op section (### `nn.<name>`) must carry a ```mlir example whose
code uses the op itself, so each description shows its textual form. Prints
one line per problem and exits 1 if there is any.
"""
import re
import sys


def op_sections(text):
    """(op name, section text) for each op of a -gen-dialect-doc page."""
    parts = re.split(r"(?m)^(?=### `nn\.)", text)
    for part in parts:
        match = re.match(r"### `(nn\.[A-Za-z0-9_.]+)`", part)
        if match:
            yield match.group(1), part


def check(paths):
    problems = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            problems.append(f"{path}: cannot read: {e.strerror}")
            continue
        if not text.strip():
            problems.append(f"{path}: empty")
    if problems:
        return problems
    with open(paths[0], encoding="utf-8") as f:
        sections = list(op_sections(f.read()))
    if not sections:
        return [f"{paths[0]}: no op sections (### `nn.<op>`)"]
    for name, section in sections:
        examples = re.findall(r"```mlir\n(.*?)```", section, re.S)
        if not examples:
            problems.append(f"{name}: the description has no ```mlir example")
        elif not any(re.search(re.escape(name) + r"\b", e) for e in examples):
            problems.append(f"{name}: no ```mlir example uses {name}")
    return problems


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    problems = check(sys.argv[1:])
    for problem in problems:
        print(problem)
    if not problems:
        print(f"ok: every op of {sys.argv[1]} has an example")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
