// RUN: nn-opt %s -nn-lower-to-kernel-calls -split-input-file | FileCheck %s

// A linear and the relu after it: the weight is B transposed (strides
// swapped), the bias goes per column, the relu into the store.
// CHECK-LABEL: func.func @linear_relu
// CHECK-DAG: %[[X:.+]] = bufferization.to_memref %{{.*}} read_only : memref<64x784xf32, strided<[?, ?], offset: ?>>
// CHECK-DAG: %[[OUT:.+]] = memref.alloc() {alignment = 64 : i64} : memref<64x256xf32>
// CHECK: call @nn_rt_sgemm(
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
// CHECK-NOT: nn.linear
// CHECK-NOT: nn.relu
// CHECK: func.func private @nn_rt_sgemm(i64, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i32, !llvm.ptr)
func.func @linear_relu(%x: tensor<64x784xf32>, %w: tensor<256x784xf32>, %b: tensor<256xf32>) -> tensor<64x256xf32> {
  %l = nn.linear %x, %w, %b : (tensor<64x784xf32>, tensor<256x784xf32>, tensor<256xf32>) -> tensor<64x256xf32>
  %y = nn.relu %l : tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}

// -----

// A single-use nn.relu after a matmul joins the kernel's store.
// CHECK-LABEL: func.func @matmul_relu
// CHECK: %[[SLOT:.+]] = llvm.alloca
// CHECK: %[[RELU:.+]] = arith.constant 1 : i32
// CHECK: llvm.insertvalue %[[RELU]], %{{.*}}[1]
// CHECK: llvm.store %{{.*}}, %[[SLOT]]
// CHECK: call @nn_rt_sgemm({{.*}}, %[[SLOT]])
// CHECK-NOT: nn.relu
func.func @matmul_relu(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %y = nn.matmul %a, %b : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %z = nn.relu %y : tensor<8x4xf32>
  return %z : tensor<8x4xf32>
}

// -----

// A relu whose input has a second user stays an op of its own.
// CHECK-LABEL: func.func @no_fuse_relu_second_user
// CHECK: call @nn_rt_sgemm
// CHECK: nn.relu
func.func @no_fuse_relu_second_user(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %y = nn.matmul %a, %b : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %z = nn.relu %y : tensor<8x4xf32>
  return %y, %z : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// CHECK-LABEL: func.func @conv_relu
// CHECK: bufferization.to_memref %{{.*}} read_only : memref<2x3x8x8xf32>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<2x4x8x8xf32>
// CHECK: call @nn_rt_conv2d_nchw(
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
// matmuls and attention: lower-to-kernel-calls-batched.mlir).
// CHECK-LABEL: func.func @no_kernel
// CHECK: nn.conv {{.*}} groups 2
// CHECK: nn.linear {{.*}}tensor<3x4xf64>
// CHECK-NOT: call
func.func @no_kernel(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>, %lw: tensor<5x4xf64>, %l: tensor<3x4xf64>) -> (tensor<1x4x6x6xf32>, tensor<3x5xf64>) {
  %c = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 2
      : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  %g = nn.linear %l, %lw : (tensor<3x4xf64>, tensor<5x4xf64>) -> tensor<3x5xf64>
  return %c, %g : tensor<1x4x6x6xf32>, tensor<3x5xf64>
}
