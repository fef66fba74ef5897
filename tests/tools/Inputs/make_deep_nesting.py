"""Writes inputs nested deeper than the tools parse, and one that is not."""
import os
import sys

out = sys.argv[1]


def write(name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


# 100,000 nested brackets in a dense literal.
n = 100_000
write("brackets.mlir",
      "func.func @f() -> tensor<1xf32> {\n"
      "  %0 = arith.constant dense<" + "[" * n + "1.0" + "]" * n +
      "> : tensor<1xf32>\n  return %0 : tensor<1xf32>\n}\n")

# 5,000 nested regions.
n = 5_000
write("regions.mlir",
      "func.func @f() {\n" + '"scf.execute_region"() ({\n' * n +
      "scf.yield\n" + "}) : () -> ()\n" * n + "return\n}\n")

# Brackets in a comment and in a string do not nest anything.
write("shallow.mlir",
      "// " + "(" * 5_000 + "\n"
      'func.func @f() attributes {s = "' + "[" * 5_000 + '"} {\n'
      "  return\n}\n")
