// Malformed input gives a located diagnostic and a non-zero exit, never a
// crash.
// RUN: not nn-opt %s 2>&1 | FileCheck %s

// CHECK: malformed.mlir:[[@LINE+2]]:{{[0-9]+}}: error: expected ':'
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = nn.relu %x tensor<2xf32>
  return %y : tensor<2xf32>
}
