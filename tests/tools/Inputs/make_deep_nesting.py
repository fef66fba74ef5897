"""Writes inputs nested deeper or with longer words than the tools parse, and
ones that are not."""
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

# A tensor type of rank 40,000: one 80,000-character word, which MLIR's lexer
# lexes again for each dimension. And one of rank 4,000, which is parsed.
for name, rank in (("rank40000.mlir", 40_000), ("rank4000.mlir", 4_000)):
    t = "tensor<" + "1x" * rank + "f32>"
    write(name, "func.func @f(%a: " + t + ") -> " + t + " {\n"
          "  return %a : " + t + "\n}\n")
