// Returning an input unchanged (Identity, folds back to the input) lowers
// all the way: the output is a copy into the caller's buffer.
// RUN: nn-opt %s -nn-optimize -nn-lower-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @forward
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-NOT: memrefCopy
func.func @forward(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %y = nn.dropout %x {p = 0.5 : f64} : tensor<2x3xf32>
  return %y, %x : tensor<2x3xf32>, tensor<2x3xf32>
}
