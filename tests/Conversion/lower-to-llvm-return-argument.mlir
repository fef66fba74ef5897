// Returning an input unchanged lowers all the way: the output is a copy into
// the caller's buffer, and no input buffer is written.
// RUN: nn-opt %s -split-input-file -nn-optimize -nn-lower-to-llvm | FileCheck %s

// Identity (eval dropout) folds back to the input.
// CHECK-LABEL: llvm.func @forward
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-NOT: memrefCopy
func.func @forward(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %y = nn.dropout %x {p = 0.5 : f64} : tensor<2x3xf32>
  return %y, %x : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A transpose of the same transpose only folds away after convert-nn-to-linalg
// (linalg canonicalization), so the function returns its argument then.
// CHECK-LABEL: llvm.func @transpose_twice
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
func.func @transpose_twice(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = nn.transpose %x 0, 2 : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %1 = nn.transpose %0 -1, 0 : (tensor<4x3x2xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// Linalg accumulating into an argument: the sum goes into a buffer of its
// own, never into the caller's input (isolate-arguments.mlir shows the
// bufferized form), and the result is copied out.
// CHECK-LABEL: llvm.func @column_sum
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK: "llvm.intr.memcpy"
// CHECK: vector<16xf32>
// CHECK: "llvm.intr.memcpy"
// CHECK: llvm.return
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @column_sum(%x: tensor<8x16xf32>, %init: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.addf %in, %out : f32
    linalg.yield %y : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
