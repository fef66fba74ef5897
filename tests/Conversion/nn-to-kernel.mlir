// RUN: nn-opt %s -convert-nn-to-kernel -split-input-file | FileCheck %s --implicit-check-not=memref --implicit-check-not=llvm --implicit-check-not=call

// The kernel ops are on tensors: nothing here is a memref, a pointer or a
// call (nn-lower-kernel-ops makes the calls after bufferization:
// lower-kernel-ops.mlir).

// A linear and the relu after it: the weight is B transposed, the bias an
// addend per column, the relu in the store; the kernel writes a fresh
// tensor.
// CHECK-LABEL: func.func @linear_relu
// CHECK-SAME: (%[[X:.+]]: tensor<64x784xf32>, %[[W:.+]]: tensor<256x784xf32>, %[[B:.+]]: tensor<256xf32>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<64x256xf32>
// CHECK: %[[Y:.+]] = nn_kernel.gemm %[[X]], %[[W]] addends(%[[B]] : tensor<256xf32>) epilogue <add [0, 0, 1], relu> outs(%[[INIT]] : tensor<64x256xf32>) transpose_b : tensor<64x784xf32>, tensor<256x784xf32> -> tensor<64x256xf32>
// CHECK: return %[[Y]]
// CHECK-NOT: nn.linear
// CHECK-NOT: nn.relu
func.func @linear_relu(%x: tensor<64x784xf32>, %w: tensor<256x784xf32>, %b: tensor<256xf32>) -> tensor<64x256xf32> {
  %l = nn.linear %x, %w, %b : (tensor<64x784xf32>, tensor<256x784xf32>, tensor<256xf32>) -> tensor<64x256xf32>
  %y = nn.relu %l : tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}

// -----

// A single-use nn.relu after a matmul joins the kernel's store.
// CHECK-LABEL: func.func @matmul_relu
// CHECK: %[[Y:.+]] = nn_kernel.gemm %arg0, %arg1 epilogue <relu> outs(%{{.*}} : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: nn.relu
func.func @matmul_relu(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %y = nn.matmul %a, %b : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %z = nn.relu %y : tensor<8x4xf32>
  return %z : tensor<8x4xf32>
}

// -----

// A weight gradient's dYᵀ·X: the transposed left side is read in place
// (transpose_a, its strides swapped at the call), not copied.
// CHECK-LABEL: func.func @transposed_lhs
// CHECK: %[[Y:.+]] = nn_kernel.gemm %arg0, %arg1 outs(%{{.*}} : tensor<4x5xf32>) transpose_a : tensor<8x4xf32>, tensor<8x5xf32> -> tensor<4x5xf32>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: nn.transpose
func.func @transposed_lhs(%dy: tensor<8x4xf32>, %x: tensor<8x5xf32>) -> tensor<4x5xf32> {
  %t = nn.transpose %dy 0, 1 : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %w = nn.matmul %t, %x : (tensor<4x8xf32>, tensor<8x5xf32>) -> tensor<4x5xf32>
  return %w : tensor<4x5xf32>
}

// -----

// B made of windows of rows of one matrix side by side (a stride-1
// convolution's weight gradient): the GEMM reads the windows in place
// (row_windows), the cat is never built. A cat of windows of different
// matrices, or of strided rows, is a plain B.
// CHECK-LABEL: func.func @row_windows
// CHECK: %[[Y:.+]] = nn_kernel.gemm %arg0, %arg1 row_windows [0, 1, 4] outs(%{{.*}} : tensor<3x6xf32>) : tensor<3x8xf32>, tensor<12x2xf32> -> tensor<3x6xf32>
// CHECK: %[[C:.+]] = nn.cat
// CHECK: nn_kernel.gemm %arg0, %[[C]] outs
// CHECK: %[[S:.+]] = nn.cat
// CHECK: nn_kernel.gemm %arg0, %[[S]] outs
// CHECK: return %[[Y]]
func.func @row_windows(%a: tensor<3x8xf32>, %x: tensor<12x2xf32>, %z: tensor<12x2xf32>, %t: tensor<16x2xf32>) -> (tensor<3x6xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %w0 = nn.slice %x dim 0 [0 : 8 : 1] : (tensor<12x2xf32>) -> tensor<8x2xf32>
  %w1 = nn.slice %x dim 0 [1 : 9 : 1] : (tensor<12x2xf32>) -> tensor<8x2xf32>
  %w2 = nn.slice %x dim 0 [4 : 12 : 1] : (tensor<12x2xf32>) -> tensor<8x2xf32>
  %b = nn.cat %w0, %w1, %w2 dim 1 : (tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x6xf32>
  %y = nn.matmul %a, %b : (tensor<3x8xf32>, tensor<8x6xf32>) -> tensor<3x6xf32>
  %v = nn.slice %z dim 0 [2 : 10 : 1] : (tensor<12x2xf32>) -> tensor<8x2xf32>
  %mixed = nn.cat %w0, %v dim 1 : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x4xf32>
  %m = nn.matmul %a, %mixed : (tensor<3x8xf32>, tensor<8x4xf32>) -> tensor<3x4xf32>
  %s = nn.slice %t dim 0 [0 : 16 : 2] : (tensor<16x2xf32>) -> tensor<8x2xf32>
  %strided = nn.cat %w0, %s dim 1 : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x4xf32>
  %n = nn.matmul %a, %strided : (tensor<3x8xf32>, tensor<8x4xf32>) -> tensor<3x4xf32>
  return %y, %m, %n : tensor<3x6xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// A relu whose input has a second user stays an op of its own.
// CHECK-LABEL: func.func @no_fuse_relu_second_user
// CHECK: %[[Y:.+]] = nn_kernel.gemm %arg0, %arg1 outs(%{{.*}} : tensor<8x4xf32>) : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
// CHECK: nn.relu %[[Y]]
func.func @no_fuse_relu_second_user(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %y = nn.matmul %a, %b : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %z = nn.relu %y : tensor<8x4xf32>
  return %y, %z : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// A convolution's bias is an addend per GEMM row (output channel).
// CHECK-LABEL: func.func @conv_relu
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<2x4x8x8xf32>
// CHECK: nn_kernel.conv2d %arg0, %arg1 addends(%arg2 : tensor<4xf32>) epilogue <add [0, 1, 0], relu> outs(%[[INIT]] : tensor<2x4x8x8xf32>) stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x8x8xf32>
// CHECK-NOT: nn.conv
// CHECK-NOT: nn.relu
func.func @conv_relu(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<2x4x8x8xf32> {
  %y = nn.conv %x, %w, %b stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
      : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  %z = nn.relu %y : tensor<2x4x8x8xf32>
  return %z : tensor<2x4x8x8xf32>
}

// -----

// What the kernels do not cover is left to convert-nn-to-linalg (batched
// matmuls and attention: nn-to-kernel-batched.mlir).
// CHECK-LABEL: func.func @no_kernel
// CHECK: nn.conv {{.*}} groups 2
// CHECK: nn.linear {{.*}}tensor<3x4xf64>
// CHECK-NOT: nn_kernel
func.func @no_kernel(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>, %lw: tensor<5x4xf64>, %l: tensor<3x4xf64>) -> (tensor<1x4x6x6xf32>, tensor<3x5xf64>) {
  %c = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 2
      : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  %g = nn.linear %l, %lw : (tensor<3x4xf64>, tensor<5x4xf64>) -> tensor<3x5xf64>
  return %c, %g : tensor<1x4x6x6xf32>, tensor<3x5xf64>
}
